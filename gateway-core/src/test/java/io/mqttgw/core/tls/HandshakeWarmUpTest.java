package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.netty.handler.ssl.OpenSsl;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS warm-up's handshakes really happen, with the listener's settings: full and resumed on the OpenSSL engine,
 * full on the JDK's, with a listener's restricted groups or protocols too. Nothing is left in the trust manager's
 * hand-over and no temporary file stays behind. Real engines in memory, at the leak detector's paranoid level.
 */
class HandshakeWarmUpTest {
    @TempDir
    Path dir;

    private GatewayConfig.TlsListener listener(String... keyValues) {
        TestGateway gateway = TestGateway.tls(TestPki.create(dir.resolve("pki")), dir);
        for (int i = 0; i < keyValues.length; i += 2) {
            gateway.with(keyValues[i], keyValues[i + 1]);
        }
        return gateway.config().tls();
    }

    @Test
    void resumesEverySecondHandshakeOnTheOpenSslEngine() throws Exception {
        assumeTrue(OpenSsl.isAvailable());
        long leftovers = warmUpDirectories();
        HandshakeWarmUp.Result result = HandshakeWarmUp.run(listener(), 20);
        assertEquals(10, result.full(), "full: " + result);
        assertEquals(10, result.resumed(), "resumed: " + result);
        assertEquals(0, result.failed());
        assertEquals(0, VerifiedPeer.inFlight(), "the trust manager's hand-over is empty again");
        assertEquals(leftovers, warmUpDirectories(), "the throwaway certificates are deleted");
    }

    @Test
    void completesFullHandshakesOnTheJdkEngine() {
        HandshakeWarmUp.Result result = HandshakeWarmUp.run(listener("listener.tls.engine", "jdk"), 6);
        assertEquals(6, result.full() + result.resumed(), "completed: " + result);
        assertEquals(0, result.failed());
        assertEquals(0, VerifiedPeer.inFlight());
    }

    @Test
    void followsTheListenersGroupsAndProtocols() {
        assumeTrue(OpenSsl.isAvailable());
        // a listener that takes only the post-quantum hybrid: the warm-up's client offers it too
        HandshakeWarmUp.Result hybrid = HandshakeWarmUp.run(listener("listener.tls.groups", "X25519MLKEM768"), 2);
        assertEquals(2, hybrid.full() + hybrid.resumed(), "X25519MLKEM768 only: " + hybrid);
        HandshakeWarmUp.Result tls12 = HandshakeWarmUp.run(listener("listener.tls.protocols", "TLSv1.2"), 4);
        assertEquals(4, tls12.full() + tls12.resumed(), "TLS 1.2 only: " + tls12);
    }

    private static long warmUpDirectories() throws Exception {
        try (Stream<Path> files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return files.filter(p -> p.getFileName().toString().startsWith("mqttgw-warm-up")).count();
        }
    }
}
