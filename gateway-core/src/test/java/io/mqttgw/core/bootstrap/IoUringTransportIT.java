package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.mqttgw.core.testkit.AdminCalls;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS front door on Netty's io_uring transport ({@code server.transport: io_uring}): mutual-TLS devices connect,
 * publish QoS 1 and get their PUBACK, on sockets that are io_uring's, with one listening socket per I/O thread or
 * with an accept thread. Skipped where io_uring cannot run (an old kernel, a seccomp filter that refuses it); what
 * startup does there is {@link TransportTest}'s.
 */
class IoUringTransportIT {
    @TempDir
    Path dir;

    @BeforeAll
    static void ioUringRunsHere() {
        assumeTrue(IoUring.isAvailable(), () -> "io_uring unavailable here: " + IoUring.unavailabilityCause());
    }

    @Test
    void servesMutualTlsDevicesOverIoUringWithASocketPerIoThread() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).with("server.transport", "io_uring").start()) {
            assertEquals(2, gateway.listeningSockets(), "one io_uring listening socket (SO_REUSEPORT) per I/O thread");
            publishesAndIsAcknowledged(gateway, pki, "dev-uring", true);
            String scrape = AdminCalls.call("GET", gateway.adminPort(), "/metrics", null).body();
            assertTrue(scrape.lines().anyMatch(l -> l.startsWith("mqttgw_transport_info{")
                    && l.contains("transport=\"io_uring\"")), scrape);
        }
        String uplink = Files.readString(dir.resolve("uplink").resolve("uplink.jsonl"));
        assertTrue(uplink.contains("\"topic\":\"devices/dev-uring/telemetry\""), uplink);
    }

    @Test
    void servesMutualTlsDevicesOverIoUringWithAnAcceptThread() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).with("server.transport", "io_uring")
                .with("server.reuse-port", "false").start()) {
            assertEquals(1, gateway.listeningSockets());
            publishesAndIsAcknowledged(gateway, pki, "dev-uring-accept", false);
        }
    }

    /**
     * Connects {@code clientId} over mutual TLS, publishes QoS 1 and reads its PUBACK; {@code ownLoop}: whether the
     * loop that accepted the connection serves it.
     */
    private static void publishesAndIsAcknowledged(Gateway gateway, TestPki pki, String clientId, boolean ownLoop)
            throws Exception {
        try (RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.device(clientId)),
                gateway.tlsPort())) {
            assertEquals(0, raw.connect(clientId, 60), "CONNACK accepted");
            Channel device = gateway.registry().find(clientId);
            assertNotNull(device, clientId + " registered");
            assertInstanceOf(IoUringSocketChannel.class, device);
            assertTrue(device.config().getOption(ChannelOption.TCP_NODELAY), "TCP_NODELAY");
            if (ownLoop) {
                assertSame(device.parent().eventLoop(), device.eventLoop(), "served by the loop that accepted it");
            } else {
                assertNotSame(device.parent().eventLoop(), device.eventLoop(), "accepted on the accept thread");
            }
            byte[] topic = RawMqttConnection.utf8("devices/" + clientId + "/telemetry");
            raw.send(RawMqttConnection.publishPacket(0x32, topic, 7, "{\"t\":21.5}".getBytes(StandardCharsets.UTF_8)));
            byte[] puback = raw.readPacket();
            assertEquals(0x40, puback[0] & 0xFF, "PUBACK");
            assertEquals(7, ((puback[2] & 0xFF) << 8) | (puback[3] & 0xFF), "for the packet id published");
        }
    }
}
