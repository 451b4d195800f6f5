package io.mqttgw.bench.footprint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.netty.channel.Channel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jol.info.GraphLayout;

/**
 * Bytes of Java heap that one established, idle mutual-TLS device connection keeps: a real gateway on 127.0.0.1, 16
 * devices complete the TLS handshake, CONNECT and SUBSCRIBE to their command topic (what the bench's idle devices
 * do). JOL walks everything reachable from the gateway (its registry holds the channels) with eight devices connected
 * (so every event loop has warmed its caches) and again after eight more: the difference divided by eight approximates
 * what each further connection adds (channels reach each other through the event loops and the registry, so a single
 * channel's
 * graph cannot be walked on its own). Native memory (BoringSSL's {@code SSL} object) is outside the heap
 * and not counted; docs/benchmarks/history.md ("Memory per connection") has the whole-process figures at 19,000
 * connections. The figure is printed and written to {@code target/channel-footprint.txt}; the ceiling fails the
 * build on a regression well above today's figure, without a 19,000-device run.
 */
class ChannelFootprintIT {
    /**
     * A coarse ceiling: the difference still holds one-time growth of shared caches (security provider services,
     * allocator thread caches, metric maps), measured at 45.6 KB per device with 4 + 4 devices on 2026-11-24 while
     * the bench measured 5.2 KB of live heap per connection at 19,000. It catches a gross regression only.
     */
    private static final long CEILING_BYTES = 64 * 1024;
    /** Connected before the first walk: every event loop has served handshakes (thread caches, providers warm). */
    private static final int WARM_DEVICES = 8;
    /** Connected between the two walks. */
    private static final int DEVICES = 8;

    static {
        // the gateway's config types are records, whose field offsets Unsafe refuses on JDK 17+; JOL's alternative
        // finds them by layout. Set before the first JOL class loads (the test method below).
        System.setProperty("jol.magicFieldOffset", "true");
    }

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES) // walks of a whole gateway's heap graph, slow on a loaded machine
    void establishedIdleConnectionStaysUnderItsHeapBudget() throws Exception {
        TestPki pki = TestPki.create(dir);
        List<RawMqttConnection> devices = new ArrayList<>();
        try (Gateway gateway = TestGateway.tls(pki, dir).with("uplink.sink", "discard").start()) {
            for (int i = 1; i <= WARM_DEVICES; i++) {
                connect(gateway, pki, devices, i);
            }
            // the first walk makes the JDK build reflection caches on the classes it meets (reachable from their
            // Class objects); walk once before measuring so they are in both graphs
            GraphLayout.parseInstance(gateway).totalSize();
            GraphLayout before = GraphLayout.parseInstance(gateway);
            for (int i = WARM_DEVICES + 1; i <= WARM_DEVICES + DEVICES; i++) {
                connect(gateway, pki, devices, i);
            }
            GraphLayout all = GraphLayout.parseInstance(gateway);
            GraphLayout further = all.subtract(before);
            long perChannel = (all.totalSize() - before.totalSize()) / DEVICES;
            String report = "heap bytes per established idle mTLS channel (object graph, JOL): " + perChannel
                    + System.lineSeparator() + "gateway graph with " + WARM_DEVICES + " devices: " + before.totalSize()
                    + " B, with " + (WARM_DEVICES + DEVICES) + ": " + all.totalSize() + " B" + System.lineSeparator()
                    + "objects new with the " + DEVICES + " further devices:" + System.lineSeparator()
                    + further.toFootprint();
            System.out.println(report);
            Path target = Path.of("target");
            if (Files.isDirectory(target)) {
                Files.writeString(target.resolve("channel-footprint.txt"), report);
            }
            assertTrue(perChannel > 1_000, "the graph walk saw the channels: " + perChannel + " B");
            assertTrue(perChannel <= CEILING_BYTES,
                    "an idle connection keeps " + perChannel + " B of heap, more than the " + CEILING_BYTES
                            + " B budget");
        } finally {
            for (RawMqttConnection device : devices) {
                device.close();
            }
        }
    }

    /** Device {@code i}: TLS handshake, CONNECT, SUBSCRIBE to its command topic, registered on the gateway. */
    private static void connect(Gateway gateway, TestPki pki, List<RawMqttConnection> devices, int i)
            throws Exception {
        String id = "footprint-" + i;
        RawMqttConnection device = RawMqttConnection.tls(pki.clientContext(pki.device(id)), gateway.tlsPort());
        devices.add(device);
        assertEquals(0, device.connect(id, 120), "CONNACK return code of " + id);
        device.send(subscribe(1, "devices/" + id + "/commands"));
        byte[] suback = device.readPacket();
        assertEquals(0x90, suback[0] & 0xF0, "SUBACK expected for " + id);
        registered(gateway, id);
    }

    private static Channel registered(Gateway gateway, String clientId) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        Channel channel = gateway.registry().find(clientId);
        while (channel == null && System.nanoTime() < deadline) {
            Thread.sleep(20);
            channel = gateway.registry().find(clientId);
        }
        assertNotNull(channel, clientId + " registered");
        return channel;
    }

    private static byte[] subscribe(int packetId, String filter) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(packetId >> 8);
        body.write(packetId);
        byte[] topic = filter.getBytes(StandardCharsets.UTF_8);
        body.write(topic.length >> 8);
        body.write(topic.length);
        body.writeBytes(topic);
        body.write(1);
        return RawMqttConnection.packet(0x82, body.toByteArray());
    }
}
