package io.mqttgw.core.bootstrap;

import static io.mqttgw.core.testkit.RawMqttConnection.packet;
import static io.mqttgw.core.testkit.RawMqttConnection.publishPacket;
import static io.mqttgw.core.testkit.RawMqttConnection.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.MqttClientState;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each malformed input closes the connection that sent it, counted under its reason, while a well-behaved device
 * on the same gateway stays connected and keeps publishing.
 */
class MalformedInputIT {
    @TempDir
    static Path dir;
    static TestPki pki;
    static Gateway gateway;
    static Mqtt3BlockingClient bystander;

    @BeforeAll
    static void start() {
        pki = TestPki.create(dir.resolve("pki"));
        gateway = TestGateway.tls(pki, dir).with("mqtt.max-packet-size", "1KiB").start();
        bystander = TestDevices.mutualTls(pki, gateway.tlsPort(), "bystander").buildBlocking();
        bystander.connect();
    }

    @AfterAll
    static void stop() {
        bystander.disconnect();
        gateway.close();
    }

    static byte[] withTopicBytes(byte[] topic) {
        return publishPacket(0x30, topic, -1, utf8("x"));
    }

    static Stream<Arguments> malformedInputs() {
        return Stream.of(
                Arguments.of("wildcard in PUBLISH topic", withTopicBytes(utf8("devices/+/telemetry")),
                        DisconnectReason.INVALID_TOPIC),
                Arguments.of("multi-level wildcard in PUBLISH topic", withTopicBytes(utf8("devices/#")),
                        DisconnectReason.INVALID_TOPIC),
                Arguments.of("bad UTF-8 in PUBLISH topic", withTopicBytes(new byte[] {'a', (byte) 0xC3, 0x28}),
                        DisconnectReason.INVALID_UTF8),
                Arguments.of("QoS 3 PUBLISH", publishPacket(0x36, utf8("a/b"), 1, utf8("x")),
                        DisconnectReason.INVALID_FIXED_HEADER),
                Arguments.of("SUBSCRIBE with reserved flags 0000", packet(0x80, new byte[] {0, 1, 0, 1, 'a', 0}),
                        DisconnectReason.INVALID_FIXED_HEADER),
                Arguments.of("PINGREQ with reserved flag set", new byte[] {(byte) 0xC1, 0},
                        DisconnectReason.INVALID_FIXED_HEADER),
                Arguments.of("second CONNECT", RawMqttConnection.connectPacket("dev-bad", 60, 4),
                        DisconnectReason.SECOND_CONNECT),
                Arguments.of("packet over mqtt.max-packet-size", publishPacket(0x30, utf8("a/b"), -1, new byte[4096]),
                        DisconnectReason.PACKET_TOO_LARGE),
                Arguments.of("CONNACK from a device", new byte[] {0x20, 2, 0, 0}, DisconnectReason.PROTOCOL_VIOLATION));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedInputs")
    void closesOnlyTheOffendingConnection(String what, byte[] input, DisconnectReason reason) throws Exception {
        double before = gateway.metrics().disconnects(reason);
        try (RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.device("dev-bad")),
                gateway.tlsPort())) {
            assertEquals(0, raw.connect("dev-bad", 60));
            raw.send(input);
            assertTrue(raw.closedWithin(3000), what + " closes the connection");
        }
        awaitCount(reason, before);
        assertEquals(MqttClientState.CONNECTED, bystander.getState());
        bystander.publishWith().topic("devices/bystander/telemetry").qos(MqttQos.AT_LEAST_ONCE)
                .payload(utf8("still here")).send();
    }

    @ParameterizedTest(name = "first packet: {0}")
    @MethodSource("firstPackets")
    void closesWhenTheFirstPacketIsNotConnect(String what, byte[] input, DisconnectReason reason) throws Exception {
        double before = gateway.metrics().disconnects(reason);
        try (RawMqttConnection raw = RawMqttConnection.tls(pki.clientContext(pki.device("dev-early")),
                gateway.tlsPort())) {
            raw.send(input);
            assertTrue(raw.closedWithin(3000), what + " closes the connection");
        }
        awaitCount(reason, before);
    }

    static Stream<Arguments> firstPackets() {
        return Stream.of(
                Arguments.of("PUBLISH", withTopicBytes(utf8("a/b")), DisconnectReason.FIRST_PACKET_NOT_CONNECT),
                Arguments.of("garbage", new byte[] {0x00, 0x00}, DisconnectReason.INVALID_FIXED_HEADER),
                Arguments.of("CONNECT with protocol level 7", RawMqttConnection.connectPacket("dev-early", 60, 7),
                        DisconnectReason.UNSUPPORTED_PROTOCOL),
                Arguments.of("MQTT 5 CONNECT with an authentication method", mqtt5ConnectWithAuthenticationMethod(),
                        DisconnectReason.BAD_AUTHENTICATION_METHOD));
    }

    /** CONNECT level 5 whose property block names authentication method "SCRAM" (enhanced auth is refused). */
    static byte[] mqtt5ConnectWithAuthenticationMethod() {
        byte[] body = {0, 4, 'M', 'Q', 'T', 'T', 5, 0x02, 0, 60, 8, 0x15, 0, 5, 'S', 'C', 'R', 'A', 'M', 0, 9, 'd',
                'e', 'v', '-', 'e', 'a', 'r', 'l', 'y'};
        return packet(0x10, body);
    }

    static void awaitCount(DisconnectReason reason, double before) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (gateway.metrics().disconnects(reason) <= before) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("disconnect reason " + reason.label() + " not counted");
            }
            Thread.sleep(10);
        }
    }
}
