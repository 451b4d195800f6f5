package io.mqttgw.bench.sim.cli;

import io.mqttgw.bench.sim.config.KeyAlgorithm;
import io.mqttgw.bench.sim.pki.BenchPki;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code bench pki}: writes (or reuses) the bench CA and server certificate and prints the gateway settings. */
@Command(name = "pki", mixinStandardHelpOptions = true, versionProvider = BenchVersion.class,
        description = "Write the bench CA, the server certificate and key (kept if present) and print the gateway's "
                + "listener.tls settings for them.")
public final class PkiCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--pki-dir", defaultValue = "bench-pki", paramLabel = "DIR",
            description = "bench PKI directory, created if missing (default ${DEFAULT-VALUE})")
    Path dir;
    @Option(names = "--algorithm", defaultValue = "ec", completionCandidates = Converters.Algorithms.class,
            description = "ec (P-256) or rsa (2048) for a new PKI (default ${DEFAULT-VALUE})")
    KeyAlgorithm algorithm;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        BenchPki pki = BenchPki.open(dir, algorithm);
        out.println("bench PKI (" + pki.algorithm().name() + ") in " + dir.toAbsolutePath());
        out.println("gateway settings:");
        out.println("  listener.tls.cert-file: " + pki.serverCertFile().toAbsolutePath());
        out.println("  listener.tls.key-file: " + pki.serverKeyFile().toAbsolutePath());
        out.println("  listener.tls.ca-file: " + pki.caFile().toAbsolutePath());
        out.flush();
        return 0;
    }
}
