package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3Publish;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.testkit.ControlledSink;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * QoS 1 and 2 acknowledgements wait for the sink and leave in arrival order; a full window stops reading; a message the
 * sink fails closes the connection so the device resends it.
 */
class UplinkAcknowledgementIT {
    @TempDir
    static Path dir;
    static TestPki pki;
    static Gateway gateway;

    @BeforeAll
    static void start() {
        pki = TestPki.create(dir.resolve("pki"));
        gateway = TestGateway.tls(pki, dir).with("uplink.sink", "controlled").with("mqtt.max-inflight-uplink", "4")
                .start();
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    static Mqtt3AsyncClient connect(String clientId) {
        Mqtt3AsyncClient c = TestDevices.mutualTls(pki, gateway.tlsPort(), clientId).buildAsync();
        c.connect().join();
        return c;
    }

    @Test
    void acknowledgesQos1OnlyAfterTheSinkAccepted() throws Exception {
        Mqtt3AsyncClient device = connect("dev-ack");
        CompletableFuture<Mqtt3Publish> acked = device.publishWith().topic("devices/dev-ack/status")
                .qos(MqttQos.AT_LEAST_ONCE).payload("on".getBytes(StandardCharsets.UTF_8)).send();
        ControlledSink.Pending pending = ControlledSink.of(gateway).next();
        assertEquals("dev-ack", pending.message().clientId());
        assertEquals("devices/dev-ack/status", pending.message().topic());
        assertArrayEquals("on".getBytes(StandardCharsets.UTF_8), pending.message().payload());
        Thread.sleep(300);
        assertFalse(acked.isDone(), "no PUBACK before the sink accepted the message");
        pending.done().complete(null);
        acked.get(5, TimeUnit.SECONDS);
        device.disconnect().join();
    }

    @Test
    void sendsPubacksInArrivalOrderWhenTheSinkCompletesOutOfOrder() throws Exception {
        try (RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.device("dev-order")),
                gateway.tlsPort())) {
            assertEquals(0, raw.connect("dev-order", 60));
            for (int id = 1; id <= 3; id++) {
                raw.send(RawMqttConnection.publishPacket(0x32, RawMqttConnection.utf8("devices/dev-order/t"), id,
                        new byte[] {(byte) id}));
            }
            List<ControlledSink.Pending> pending = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                pending.add(ControlledSink.of(gateway).next());
            }
            pending.get(2).done().complete(null);
            pending.get(1).done().complete(null);
            raw.socket().setSoTimeout(300);
            assertThrows(java.net.SocketTimeoutException.class, raw::readPacket,
                    "no PUBACK while the first message waits");
            raw.socket().setSoTimeout(5000);
            pending.get(0).done().complete(null);
            for (int id = 1; id <= 3; id++) {
                byte[] puback = raw.readPacket();
                assertEquals(0x40, puback[0] & 0xFF);
                assertEquals(id, ((puback[2] & 0xFF) << 8) | (puback[3] & 0xFF));
            }
        }
    }

    @Test
    void stopsReadingAConnectionWhoseWindowIsFull() throws Exception {
        try (RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.device("dev-flood")),
                gateway.tlsPort())) {
            assertEquals(0, raw.connect("dev-flood", 60));
            for (int id = 1; id <= 10; id++) {
                raw.send(RawMqttConnection.publishPacket(0x32, RawMqttConnection.utf8("devices/dev-flood/t"), id,
                        new byte[] {(byte) id}));
            }
            List<ControlledSink.Pending> pending = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                pending.add(ControlledSink.of(gateway).next());
            }
            Thread.sleep(300);
            assertEquals(0, ControlledSink.of(gateway).waiting(), "reading stopped at the window of 4");
            assertFalse(gateway.registry().find("dev-flood").config().isAutoRead());
            pending.forEach(p -> p.done().complete(null));
            for (int i = 0; i < 6; i++) {
                ControlledSink.of(gateway).next().done().complete(null);
            }
            for (int id = 1; id <= 10; id++) {
                byte[] puback = raw.readPacket();
                assertEquals(id, ((puback[2] & 0xFF) << 8) | (puback[3] & 0xFF));
            }
            // reading resumes in the same event-loop task that flushed the last PUBACK, just after the flush
            long deadline = System.currentTimeMillis() + 2000;
            while (!gateway.registry().find("dev-flood").config().isAutoRead()
                    && System.currentTimeMillis() < deadline) {
                Thread.sleep(5);
            }
            assertTrue(gateway.registry().find("dev-flood").config().isAutoRead());
        }
    }

    @Test
    void aQos1MessageTheSinkFailsClosesTheConnectionAndTheDeviceResendsItAfterReconnecting() throws Exception {
        double before = gateway.metrics().disconnects(DisconnectReason.SINK_FAILED);
        Mqtt3AsyncClient device = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-resend")
                .automaticReconnect().initialDelay(100, TimeUnit.MILLISECONDS).maxDelay(1, TimeUnit.SECONDS)
                .applyAutomaticReconnect().buildAsync();
        device.connectWith().cleanSession(false).send().get(15, TimeUnit.SECONDS);
        CompletableFuture<Mqtt3Publish> acked = device.publishWith().topic("devices/dev-resend/status")
                .qos(MqttQos.AT_LEAST_ONCE).payload("m1".getBytes(StandardCharsets.UTF_8)).send();
        ControlledSink.of(gateway).next().done().completeExceptionally(new IllegalStateException("kafka down"));

        // an MQTT 3.1.1 client resends an unacknowledged PUBLISH only once reconnected
        ControlledSink.Pending resent = ControlledSink.of(gateway).next(20);
        assertArrayEquals("m1".getBytes(StandardCharsets.UTF_8), resent.message().payload());
        assertEquals(before + 1, gateway.metrics().disconnects(DisconnectReason.SINK_FAILED), "closed as sink_failed");
        resent.done().complete(null);
        acked.get(15, TimeUnit.SECONDS);
        device.disconnect().get(15, TimeUnit.SECONDS);
    }

    @Test
    void completesQos2AfterTheSinkAcceptedAndDeliversOnce() throws Exception {
        try (RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.device("dev-qos2")),
                gateway.tlsPort())) {
            assertEquals(0, raw.connect("dev-qos2", 60));
            byte[] publish = RawMqttConnection.publishPacket(0x34, RawMqttConnection.utf8("devices/dev-qos2/t"), 7,
                    new byte[] {7});
            raw.send(publish);
            ControlledSink.of(gateway).next().done().complete(null);
            byte[] pubrec = raw.readPacket();
            assertEquals(0x50, pubrec[0] & 0xFF);
            // a retransmission (DUP) before PUBREL is answered again but not handed to the sink twice
            publish[0] = 0x3C;
            raw.send(publish);
            assertEquals(0x50, raw.readPacket()[0] & 0xFF);
            assertEquals(0, ControlledSink.of(gateway).waiting());
            raw.send(new byte[] {0x62, 2, 0, 7});
            byte[] pubcomp = raw.readPacket();
            assertEquals(0x70, pubcomp[0] & 0xFF);
            assertEquals(7, pubcomp[3]);
        }
    }

    static <T extends Throwable> void assertThrows(Class<T> type, org.junit.jupiter.api.function.Executable e,
                                                   String message) {
        org.junit.jupiter.api.Assertions.assertThrows(type, e, message);
    }
}
