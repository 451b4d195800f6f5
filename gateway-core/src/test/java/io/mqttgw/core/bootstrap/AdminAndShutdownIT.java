package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.eclipse.paho.client.mqttv3.MqttClient;
import org.eclipse.paho.client.mqttv3.MqttConnectOptions;
import org.eclipse.paho.client.mqttv3.persist.MemoryPersistence;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The plain TCP listener with the Paho client, the admin endpoint, and a graceful shutdown. */
class AdminAndShutdownIT {
    @TempDir
    Path dir;

    static HttpResponse<String> get(int port, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    static MqttClient paho(Gateway gateway, String clientId) throws Exception {
        MqttClient client = new MqttClient("tcp://127.0.0.1:" + gateway.tcpPort(), clientId, new MemoryPersistence());
        MqttConnectOptions options = new MqttConnectOptions();
        options.setCleanSession(true);
        options.setAutomaticReconnect(false);
        options.setKeepAliveInterval(30);
        client.connect(options);
        return client;
    }

    /** A device as bytes on a socket: twenty connect in the time a few Paho clients take. */
    private static RawMqttConnection raw(Gateway gateway, String clientId) throws Exception {
        RawMqttConnection device = RawMqttConnection.tcp(gateway.tcpPort());
        assertEquals(0, device.connect(clientId, 30), "CONNACK return code of " + clientId);
        return device;
    }

    @Test
    void servesMetricsAndHealthOfAPublishingNode() throws Exception {
        try (Gateway gateway = TestGateway.tcp(dir).start()) {
            MqttClient client = paho(gateway, "paho-1");
            client.publish("devices/paho-1/telemetry", "hello".getBytes(StandardCharsets.UTF_8), 1, false);
            client.publish("devices/paho-1/telemetry", "again".getBytes(StandardCharsets.UTF_8), 0, false);

            HttpResponse<String> health = get(gateway.adminPort(), "/health");
            assertEquals(200, health.statusCode());
            assertTrue(health.body().contains("\"status\":\"UP\""), health.body());
            assertEquals(health.body(), get(gateway.adminPort(), "/health/ready").body(), "/health is /health/ready");
            assertEquals("{\"status\":\"LIVE\"}\n", get(gateway.adminPort(), "/health/live").body());

            String metrics = get(gateway.adminPort(), "/metrics").body();
            assertTrue(metrics.contains("mqttgw_connections_open{node=\"test-node\"} 1.0"), metrics);
            assertTrue(metrics.contains("mqttgw_publish_in_total{node=\"test-node\",qos=\"1\"} 1.0"), metrics);
            assertTrue(metrics.contains("mqttgw_connects_total{node=\"test-node\",result=\"accepted\"} 1.0"), metrics);
            for (String name : List.of("mqttgw_received_bytes_total", "mqttgw_sent_bytes_total",
                    "mqttgw_eventloop_pending_tasks",
                    "mqttgw_netty_direct_memory_used_bytes", "mqttgw_process_resident_memory_bytes",
                    "jvm_memory_used_bytes", "jvm_gc_", "mqttgw_tls_handshake_failures_total",
                    "mqttgw_disconnects_total", "mqttgw_publish_out_total", "process_files_open_files",
                    "process_files_max_files")) {
                assertTrue(metrics.contains(name), "metrics expose " + name);
            }
            assertEquals(404, get(gateway.adminPort(), "/nothing").statusCode());
            client.disconnect();
            client.close();
        }
    }

    @Test
    void shutsDownGracefullyClosingSessionsAndFlushingTheSink() throws Exception {
        Gateway gateway = TestGateway.tcp(dir).with("shutdown.drain-rate", "200").start();
        List<RawMqttConnection> devices = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            RawMqttConnection device = raw(gateway, "raw-" + i);
            device.send(RawMqttConnection.publishPacket(0x32, RawMqttConnection.utf8("devices/raw-" + i + "/telemetry"),
                    1, ("m" + i).getBytes(StandardCharsets.UTF_8)));
            assertEquals(0x40, device.readPacket()[0] & 0xF0, "PUBACK for raw-" + i);
            devices.add(device);
        }
        int admin = gateway.adminPort();
        long start = System.nanoTime();
        gateway.close();
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(20, gateway.metrics().disconnects(DisconnectReason.SHUTDOWN));
        assertTrue(ms >= 50, "20 sessions at 200/s take about 100 ms, took " + ms);
        assertEquals(0, gateway.registry().size());
        String lines = Files.readString(dir.resolve("uplink").resolve("uplink.jsonl"));
        assertEquals(20, lines.lines().count());
        for (RawMqttConnection device : devices) {
            assertTrue(device.closedWithin(5_000), "closed by the shutdown");
            device.close();
        }
        assertFalse(canConnect(admin), "the admin port is closed after shutdown");
    }

    @Test
    void answersNotReadyButLiveWhileDraining() throws Exception {
        Gateway gateway = TestGateway.tcp(dir).with("shutdown.drain-rate", "10").with("shutdown.timeout", "10s")
                .start();
        List<RawMqttConnection> devices = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            devices.add(raw(gateway, "drain-" + i));
        }
        int admin = gateway.adminPort();
        assertEquals(200, get(admin, "/health/ready").statusCode());
        Thread closer = new Thread(gateway::close, "closer");
        closer.start();
        // 20 sessions at 10/s: two seconds of draining, with the admin listener still up
        long deadline = System.currentTimeMillis() + 30_000;
        int ready = 200;
        while (ready != 503 && System.currentTimeMillis() < deadline) {
            ready = get(admin, "/health/ready").statusCode();
        }
        assertEquals(503, ready, "draining: take no new devices");
        HttpResponse<String> live = get(admin, "/health/live");
        assertEquals(200, live.statusCode(), "draining is not dead");
        closer.join(30_000);
        for (RawMqttConnection device : devices) {
            device.close();
        }
    }

    @Test
    void keepsAcceptingDevicesWhileReadyAnswers503DuringTheReadyGrace() throws Exception {
        Gateway gateway = TestGateway.tcp(dir).with("shutdown.ready-grace", "4s").start();
        int admin = gateway.adminPort();
        int port = gateway.tcpPort();
        MqttClient before = paho(gateway, "connected-before");
        Thread closer = new Thread(gateway::close, "closer");
        closer.start();
        long deadline = System.currentTimeMillis() + 30_000;
        while (get(admin, "/health/ready").statusCode() != 503 && System.currentTimeMillis() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(503, get(admin, "/health/ready").statusCode(), "leaving: the balancer is told first");
        // a balancer that has not seen the 503 yet still sends devices: they are served, not refused
        MqttClient during = paho(gateway, "arrived-during-grace");
        assertTrue(during.isConnected(), "a device sent here during the grace connects");
        closer.join(30_000);
        assertFalse(closer.isAlive(), "shutdown finished");
        assertFalse(canConnect(port), "the device port is closed once the grace is over");
        // the shutdown closed both; Paho learns of it on its own reader thread, and close() refuses until then
        for (MqttClient c : List.of(before, during)) {
            long until = System.currentTimeMillis() + 15_000;
            while (c.isConnected() && System.currentTimeMillis() < until) {
                Thread.sleep(10);
            }
            assertFalse(c.isConnected(), c.getClientId() + " was closed by the shutdown");
            c.close(true);
        }
    }

    @Test
    void releasesThreadsAndFilesWhenStartFails() throws Exception {
        try (var taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            var attempt = TestGateway.tcp(dir).with("listener.tcp.port", Integer.toString(taken.getLocalPort()));
            org.junit.jupiter.api.Assertions.assertThrows(Exception.class, attempt::start);
        }
        long deadline = System.currentTimeMillis() + 5000;
        while (gatewayThreadsAlive() && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(List.of(), gatewayThreads(),
                "no event loop, writer or housekeeping thread outlives a failed start");
    }

    static List<String> gatewayThreads() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName).filter(n ->
                n.startsWith("mqtt-io") || n.startsWith("mqtt-accept") || n.equals("uplink-file-writer")
                        || n.equals("gateway-housekeeping")).toList();
    }

    static boolean gatewayThreadsAlive() {
        return !gatewayThreads().isEmpty();
    }

    static boolean canConnect(int port) {
        try (var s = new java.net.Socket("127.0.0.1", port)) {
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
