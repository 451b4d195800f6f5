package io.mqttgw.bench.sim.scenario;

import io.mqttgw.bench.sim.config.KeyAlgorithm;
import io.mqttgw.bench.sim.pki.BenchPki;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A real gateway on 127.0.0.1 that trusts the bench's device CA and discards uplink, and the bench arguments that
 * aim an in-process fleet at it (no worker processes). Close it to stop the gateway.
 */
record BenchTarget(Gateway gateway, List<String> arguments) implements AutoCloseable {

    static BenchTarget start(Path dir) throws Exception {
        TestPki serverPki = TestPki.create(dir.resolve("server-pki"));
        BenchPki benchPki = BenchPki.open(dir.resolve("bench-pki"), KeyAlgorithm.EC);
        Gateway gateway = TestGateway.tls(serverPki, dir)
                .with("listener.tls.ca-file", benchPki.caFile().toString())
                .with("uplink.sink", "discard")
                .start();
        return new BenchTarget(gateway, List.of("--workers", "0",
                "--port", Integer.toString(gateway.tlsPort()),
                "--admin", "127.0.0.1:" + gateway.adminPort(),
                "--pki-dir", dir.resolve("bench-pki").toString(),
                "--server-ca", serverPki.caFile().toString()));
    }

    /** These target arguments followed by {@code scenario}'s own. */
    List<String> with(String... scenario) {
        List<String> all = new ArrayList<>(arguments);
        all.addAll(List.of(scenario));
        return all;
    }

    @Override
    public void close() {
        gateway.close();
    }
}
