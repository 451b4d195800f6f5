package io.mqttgw.core.bootstrap;

import static io.mqttgw.core.testkit.RawMqttConnection.connectPacket;
import static io.mqttgw.core.testkit.RawMqttConnection.packet;
import static io.mqttgw.core.testkit.RawMqttConnection.publishPacket;
import static io.mqttgw.core.testkit.RawMqttConnection.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MQTT 3.1.1 strictness on input, one test per normative statement, with a raw TCP device writing crafted bytes.
 * Each bad packet closes its connection at once (well before the 30 s CONNECT deadline configured here), counted
 * under its own reason, which also proves no exception path was taken (that would count internal_error first);
 * a bystander connection keeps getting its PINGRESPs.
 */
class StrictInputIT {
    private static final long AT_ONCE_MILLIS = 5000;

    @TempDir
    static Path dir;
    static Gateway gateway;
    static RawMqttConnection bystander;

    @BeforeAll
    static void start() throws Exception {
        gateway = TestGateway.tcp(dir).with("mqtt.connect-timeout", "30s").with("mqtt.max-packet-size", "4KiB")
                .start();
        bystander = RawMqttConnection.tcp(gateway.tcpPort());
        assertEquals(0, bystander.connect("bystander", 600));
    }

    @AfterAll
    static void stop() throws Exception {
        bystander.close();
        gateway.close();
    }

    @AfterEach
    void bystanderUntouched() throws Exception {
        bystander.send(new byte[] {(byte) 0xC0, 0});
        assertArrayEquals(new byte[] {(byte) 0xD0, 0}, bystander.readPacket());
    }

    // --- CONNECT flags (MQTT-3.1.2) ---

    @Test
    void connectWithPasswordFlagButNoUserNameIsClosed_MQTT_3_1_2_22() throws Exception {
        assertFirstPacketCloses(connect(0x42, "dev-a", null, null, null, null, utf8("secret")),
                DisconnectReason.INVALID_CONNECT_FLAGS);
    }

    @Test
    void connectWithWillQos3IsClosedAndNoWillReachesTheMetrics_MQTT_3_1_2_14() throws Exception {
        // will flag + will QoS 3: once accepted, publishing the will indexed the per-QoS metrics with 3
        assertFirstPacketCloses(connect(0x02 | 0x04 | 0x18, "dev-b", "will/t", utf8("gone"), null, null, null),
                DisconnectReason.INVALID_CONNECT_FLAGS);
    }

    @Test
    void connectWithWillQosButNoWillFlagIsClosed_MQTT_3_1_2_13() throws Exception {
        assertFirstPacketCloses(connect(0x02 | 0x08, "dev-c", null, null, null, null, null),
                DisconnectReason.INVALID_CONNECT_FLAGS);
    }

    @Test
    void connectWithWillRetainButNoWillFlagIsClosed_MQTT_3_1_2_15() throws Exception {
        assertFirstPacketCloses(connect(0x02 | 0x20, "dev-d", null, null, null, null, null),
                DisconnectReason.INVALID_CONNECT_FLAGS);
    }

    @Test
    void connectWithReservedFlagIsClosed_MQTT_3_1_2_3() throws Exception {
        assertFirstPacketCloses(connect(0x03, "dev-e", null, null, null, null, null),
                DisconnectReason.INVALID_CONNECT_FLAGS);
    }

    @Test
    void connectWithEmptyWillTopicIsClosed_MQTT_4_7_3_1() throws Exception {
        assertFirstPacketCloses(connect(0x06, "dev-f", "", utf8("gone"), null, null, null),
                DisconnectReason.INVALID_TOPIC);
    }

    // --- CONNECT fields inside the remaining length (MQTT-1.5.3, MQTT-2.2.3) ---

    @Test
    void connectWhoseClientIdRunsPastItsRemainingLengthIsClosedAtOnce_MQTT_1_5_3() throws Exception {
        byte[] body = connectBody(0x02, "dev-g", null, null, null, null, null);
        // the client id claims 200 bytes; the packet ends after 5 of them
        body[10] = 0;
        body[11] = (byte) 200;
        assertFirstPacketCloses(packet(0x10, body), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void connectWithUserNameFlagButNoUserNameFieldIsClosedAtOnce_MQTT_1_5_3() throws Exception {
        // the flags promise a user name the packet does not carry
        byte[] body = connectBody(0x82, "dev-h", null, null, null, null, null);
        assertFirstPacketCloses(packet(0x10, body), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void connectWhoseWillMessageRunsPastItsRemainingLengthIsClosedAtOnce_MQTT_1_5_3() throws Exception {
        byte[] body = connectBody(0x06, "dev-i", "will/t", utf8("gone"), null, null, null);
        body[body.length - 6] = 0x7F; // the will message's length prefix now claims ~32 KB
        assertFirstPacketCloses(packet(0x10, body), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void connectWithBytesAfterItsLastFieldIsClosed_MQTT_2_2_3() throws Exception {
        byte[] body = connectBody(0x02, "dev-j", null, null, null, null, null);
        byte[] longer = java.util.Arrays.copyOf(body, body.length + 3);
        assertFirstPacketCloses(packet(0x10, longer), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void connectWithUnknownProtocolLevelIsAnsweredWithConnackCode1_MQTT_3_1_2_2() throws Exception {
        double before = gateway.metrics().disconnects(DisconnectReason.UNSUPPORTED_PROTOCOL);
        try (RawMqttConnection raw = RawMqttConnection.tcp(gateway.tcpPort())) {
            raw.send(connectPacket("dev-k", 60, 0xFF));
            assertArrayEquals(new byte[] {0x20, 2, 0, 1}, raw.readPacket());
            assertTrue(raw.closedWithin(AT_ONCE_MILLIS));
        }
        awaitCount(DisconnectReason.UNSUPPORTED_PROTOCOL, before);
    }

    // --- PUBLISH ---

    @Test
    void publishWithEmptyTopicIsClosed_MQTT_4_7_3_1() throws Exception {
        assertSessionPacketCloses(publishPacket(0x30, new byte[0], -1, utf8("x")), DisconnectReason.INVALID_TOPIC);
    }

    @Test
    void publishWhoseTopicLengthRunsPastThePacketIsClosedWithoutReadingTheNextPacket_MQTT_1_5_3() throws Exception {
        // topic length 40 inside a 6-byte packet; the PINGREQ after it must not be read as the topic's rest
        byte[] publish = packet(0x30, new byte[] {0, 40, 'a', '/', 'b', 'x'});
        byte[] ping = {(byte) 0xC0, 0};
        byte[] both = new byte[publish.length + 40];
        System.arraycopy(publish, 0, both, 0, publish.length);
        for (int i = publish.length; i + 1 < both.length; i += 2) {
            both[i] = ping[0];
            both[i + 1] = ping[1];
        }
        assertSessionPacketCloses(both, DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void publishQos1WhosePacketIdRunsPastThePacketIsClosed_MQTT_1_5_3() throws Exception {
        assertSessionPacketCloses(packet(0x32, new byte[] {0, 3, 'a', '/', 'b', 7}), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void publishQos1WithPacketIdZeroIsClosed_MQTT_2_3_1_1() throws Exception {
        assertSessionPacketCloses(publishPacket(0x32, utf8("a/b"), 0, utf8("x")), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void publishWithQos3IsClosedWithoutReachingAnExceptionPath_MQTT_3_3_1_4() throws Exception {
        assertSessionPacketCloses(publishPacket(0x36, utf8("a/b"), 1, utf8("x")),
                DisconnectReason.INVALID_FIXED_HEADER);
    }

    // --- SUBSCRIBE / UNSUBSCRIBE ---

    @Test
    void subscribeWhoseFilterLengthRunsPastThePacketIsClosed_MQTT_1_5_3() throws Exception {
        assertSessionPacketCloses(packet(0x82, new byte[] {0, 1, 0, 30, 'a', '/', 'b', 0}),
                DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void subscribeWithoutTopicFilterIsClosed_MQTT_3_8_3_3() throws Exception {
        assertSessionPacketCloses(packet(0x82, new byte[] {0, 1}), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void subscribeWithEmptyTopicFilterIsClosed_MQTT_4_7_3_1() throws Exception {
        assertSessionPacketCloses(packet(0x82, new byte[] {0, 1, 0, 0, 0}), DisconnectReason.INVALID_TOPIC);
    }

    @Test
    void subscribeRequestingQos3IsClosedWithoutReachingAnExceptionPath_MQTT_3_8_3_4() throws Exception {
        assertSessionPacketCloses(packet(0x82, new byte[] {0, 1, 0, 1, 'a', 3}), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void subscribeWithReservedOptionBitsIsClosed_MQTT_3_8_3_4() throws Exception {
        assertSessionPacketCloses(packet(0x82, new byte[] {0, 1, 0, 1, 'a', 0x41}), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void unsubscribeWithoutTopicFilterIsClosed_MQTT_3_10_3_2() throws Exception {
        assertSessionPacketCloses(packet(0xA2, new byte[] {0, 1}), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void unsubscribeWhoseFilterLengthRunsPastThePacketIsClosed_MQTT_1_5_3() throws Exception {
        assertSessionPacketCloses(packet(0xA2, new byte[] {0, 1, 0, 9, 'a'}), DisconnectReason.MALFORMED_PACKET);
    }

    // --- fixed lengths and fixed headers (MQTT-2.2) ---

    @Test
    void pubrelLongerThanItsPacketIdIsClosed_MQTT_2_2_3() throws Exception {
        // a 3.1.1 PUBREL is exactly 2 bytes; the decoder would read the rest as an MQTT 5 reason code and properties
        assertSessionPacketCloses(packet(0x62, new byte[] {0, 1, 0, 5}), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void pingreqWithABodyIsClosed_MQTT_2_2_3() throws Exception {
        assertSessionPacketCloses(packet(0xC0, new byte[] {1}), DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void remainingLengthOfFiveBytesIsClosed_MQTT_2_2_3() throws Exception {
        assertSessionPacketCloses(new byte[] {0x30, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x01},
                DisconnectReason.MALFORMED_PACKET);
    }

    @Test
    void packetOverMaxPacketSizeIsClosedBeforeItsBodyArrives() throws Exception {
        // only the header of a 1 MB PUBLISH is sent: refused on the remaining length alone
        assertSessionPacketCloses(new byte[] {0x30, (byte) 0x80, (byte) 0x80, 0x40}, DisconnectReason.PACKET_TOO_LARGE);
    }

    @Test
    void reservedPacketType15IsClosedWithoutReachingAnExceptionPath_MQTT_2_2_1() throws Exception {
        assertSessionPacketCloses(new byte[] {(byte) 0xF0, 0}, DisconnectReason.INVALID_FIXED_HEADER);
    }

    @Test
    void reservedPacketType0IsClosedWithoutReachingAnExceptionPath_MQTT_2_2_1() throws Exception {
        assertSessionPacketCloses(new byte[] {0x00, 0}, DisconnectReason.INVALID_FIXED_HEADER);
    }

    @Test
    void connackWithUnknownReturnCodeFromADeviceIsClosedWithoutReachingAnExceptionPath() throws Exception {
        // the return code byte indexes Netty's return-code enum; either the decoder or the session refuses it
        double internal = gateway.metrics().disconnects(DisconnectReason.INTERNAL_ERROR);
        double before = gateway.metrics().disconnects(DisconnectReason.MALFORMED_PACKET)
                + gateway.metrics().disconnects(DisconnectReason.PROTOCOL_VIOLATION);
        try (RawMqttConnection raw = RawMqttConnection.tcp(gateway.tcpPort())) {
            assertEquals(0, raw.connect("dev-connack", 60));
            raw.send(new byte[] {0x20, 2, 0, (byte) 0xEE});
            assertTrue(raw.closedWithin(AT_ONCE_MILLIS));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (gateway.metrics().disconnects(DisconnectReason.MALFORMED_PACKET)
                + gateway.metrics().disconnects(DisconnectReason.PROTOCOL_VIOLATION) <= before) {
            assertTrue(System.nanoTime() < deadline, "closed as malformed or protocol violation");
            Thread.sleep(10);
        }
        assertEquals(internal, gateway.metrics().disconnects(DisconnectReason.INTERNAL_ERROR));
    }

    // --- helpers ---

    private static void assertFirstPacketCloses(byte[] input, DisconnectReason reason) throws Exception {
        double before = gateway.metrics().disconnects(reason);
        try (RawMqttConnection raw = RawMqttConnection.tcp(gateway.tcpPort())) {
            raw.send(input);
            assertTrue(raw.closedWithin(AT_ONCE_MILLIS), "closed at once, not at the CONNECT deadline");
        }
        awaitCount(reason, before);
    }

    private static void assertSessionPacketCloses(byte[] input, DisconnectReason reason) throws Exception {
        double before = gateway.metrics().disconnects(reason);
        try (RawMqttConnection raw = RawMqttConnection.tcp(gateway.tcpPort())) {
            assertEquals(0, raw.connect("dev-session", 600));
            raw.send(input);
            assertTrue(raw.closedWithin(AT_ONCE_MILLIS), "closed at once");
        }
        awaitCount(reason, before);
    }

    private static void awaitCount(DisconnectReason reason, double before) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (gateway.metrics().disconnects(reason) <= before) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("disconnect reason " + reason.label() + " not counted");
            }
            Thread.sleep(10);
        }
    }

    static byte[] connect(int flags, String clientId, String willTopic, byte[] willMessage, String user,
                          byte[] unusedPasswordWithUser, byte[] password) {
        return packet(0x10, connectBody(flags, clientId, willTopic, willMessage, user, unusedPasswordWithUser,
                password));
    }

    /** A 3.1.1 CONNECT body with the given flags byte and exactly the fields given (null fields are left out). */
    static byte[] connectBody(int flags, String clientId, String willTopic, byte[] willMessage, String user,
                              byte[] unused, byte[] password) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        field(b, utf8("MQTT"));
        b.write(4);
        b.write(flags);
        b.write(0);
        b.write(60);
        field(b, utf8(clientId));
        if (willTopic != null) {
            field(b, utf8(willTopic));
            field(b, willMessage);
        }
        if (user != null) {
            field(b, utf8(user));
        }
        if (password != null) {
            field(b, password);
        }
        return b.toByteArray();
    }

    private static void field(ByteArrayOutputStream b, byte[] value) {
        b.write(value.length >> 8);
        b.write(value.length & 0xFF);
        b.writeBytes(value);
    }
}
