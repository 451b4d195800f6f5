package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.identity.CertificateAuthority;
import io.mqttgw.core.identity.RevocationPath;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.testkit.CaRotation;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.pkitesting.X509Bundle;
import java.math.BigInteger;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sweep after a CRL reload, on embedded channels (the test thread is their event loop, so the closes it hands
 * to them run when the test runs their pending tasks).
 */
class RevokedConnectionSweepTest {
    @TempDir
    Path dir;

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final X509Bundle ca = CaRotation.authority("CN=Fleet CA");
    private final X509Bundle rotated = CaRotation.authority("CN=Fleet CA");
    private final List<X509Certificate> cas = List.of(ca.getCertificate(), rotated.getCertificate());
    private final ChannelRegistry registry = new ChannelRegistry(4);

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private EmbeddedChannel connected(String clientId, X509Bundle issuer, long serial) {
        EmbeddedChannel channel = new EmbeddedChannel();
        ConnectionContext context = new ConnectionContext("tls");
        channel.attr(ConnectionContext.KEY).set(context);
        context.verifiedCertificate(null, clientId, Long.MAX_VALUE, new byte[32], new RevocationPath(
                new CertificateAuthority[] {CertificateAuthority.of(issuer.getCertificate())},
                new BigInteger[] {BigInteger.valueOf(serial)}));
        registry.register(clientId, channel);
        return channel;
    }

    private RevocationLists revoking(X509Bundle issuer, long serial) {
        X509Bundle device = CaRotation.device("d" + serial, issuer, BigInteger.valueOf(serial));
        return RevocationLists.of(TlsFiles.crls("crl", CaRotation.write(dir.resolve("c.crl"),
                CaRotation.crl(issuer, device))), cas);
    }

    /**
     * Waits until the sweep has handed every close to the channels' loop, then runs them. Embedded loops are not
     * thread-safe: their tasks are run only once the sweep's thread is done with them (its lock orders the two).
     */
    private static void runLoops(RevokedConnectionSweep sweep, List<EmbeddedChannel> channels)
            throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (sweep.pending() > 0 && System.currentTimeMillis() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(0, sweep.pending());
        channels.forEach(EmbeddedChannel::runPendingTasks);
    }

    @Test
    void closesOnlyTheConnectionsOfTheRevokingCaAndCountsThemAsRevoked() throws Exception {
        EmbeddedChannel revoked = connected("revoked", ca, 7);
        EmbeddedChannel sameSerialOtherCa = connected("twin", rotated, 7);
        EmbeddedChannel other = connected("other", ca, 8);
        RevokedConnectionSweep sweep = new RevokedConnectionSweep(registry, new EventLog(100), scheduler, 500,
                Duration.ofMinutes(1));

        sweep.accept(revoking(ca, 7));
        runLoops(sweep, List.of(revoked, sameSerialOtherCa, other));

        assertFalse(revoked.isActive());
        assertEquals(DisconnectReason.CERTIFICATE_REVOKED, ConnectionContext.of(revoked).closeReason());
        assertTrue(sameSerialOtherCa.isActive(), "the same serial of the other CA of the name is not revoked");
        assertTrue(other.isActive());
    }

    @Test
    void leavesAConnectionAlreadyClosingForAnotherReasonWithThatReason() throws Exception {
        EmbeddedChannel closing = connected("closing", ca, 9);
        io.mqttgw.core.connection.DeviceDisconnector.close(closing, DisconnectReason.TAKEOVER);
        RevokedConnectionSweep sweep = new RevokedConnectionSweep(registry, new EventLog(100), scheduler, 500,
                Duration.ofMinutes(1));

        sweep.accept(revoking(ca, 9));
        runLoops(sweep, List.of(closing));

        assertEquals(DisconnectReason.TAKEOVER, ConnectionContext.of(closing).closeReason(), "counted once, as before");
    }

    @Test
    void handsOutNoMoreThanTheRateAllowsInAFirstTick() throws Exception {
        X509Bundle[] devices = new X509Bundle[30];
        for (int i = 0; i < devices.length; i++) {
            connected("dev-" + i, ca, 100 + i);
            devices[i] = CaRotation.device("dev-" + i, ca, BigInteger.valueOf(100 + i));
        }
        RevocationLists all = RevocationLists.of(TlsFiles.crls("crl", CaRotation.write(dir.resolve("all.crl"),
                CaRotation.crl(ca, devices))), cas);
        // 10 a second: one close per 100 ms tick
        RevokedConnectionSweep sweep = new RevokedConnectionSweep(registry, new EventLog(100), scheduler, 10,
                Duration.ofMinutes(1));

        long start = System.nanoTime();
        sweep.accept(all);
        long deadline = System.currentTimeMillis() + 10_000;
        while (sweep.pending() == devices.length && System.currentTimeMillis() < deadline) {
            Thread.sleep(5);
        }
        Thread.sleep(250);
        int handedOut = devices.length - sweep.pending();
        long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
        assertTrue(handedOut >= 1, "the first tick runs at once");
        assertTrue(handedOut <= elapsedMillis / 100 + 1, handedOut + " handed out in " + elapsedMillis + " ms at 10/s");
        assertTrue(sweep.pending() > 0, "the rest waits for later ticks");
    }
}
