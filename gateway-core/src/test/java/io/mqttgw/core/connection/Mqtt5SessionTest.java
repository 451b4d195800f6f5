package io.mqttgw.core.connection;

import static io.mqttgw.core.testkit.ProtocolFixture.release;
import static io.mqttgw.core.testkit.ProtocolFixture.send;
import static io.mqttgw.core.testkit.ProtocolFixture.send5;
import static io.mqttgw.core.testkit.ProtocolFixture.written;
import static io.mqttgw.core.testkit.ProtocolFixture.written5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.ProtocolFixture;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttReasonCodeAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttVersion;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * MQTT 5.0 sessions on the real pipeline: session expiry instead of clean session, the device's DISCONNECT with
 * reason codes and a new expiry, the will delay, and the server DISCONNECT with a reason code for every close the
 * gateway decides.
 */
class Mqtt5SessionTest {
    @TempDir
    Path dir;

    private final List<EmbeddedChannel> channels = new ArrayList<>();

    @AfterEach
    void releaseChannels() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    private ProtocolFixture allowing(String... overrides) {
        ProtocolFixture f = ProtocolFixture.builder(dir).with(overrides).allowing().sinkAccepting().build();
        return f;
    }

    private static MqttProperties properties(MqttProperties.MqttProperty<?>... each) {
        MqttProperties p = new MqttProperties();
        for (MqttProperties.MqttProperty<?> x : each) {
            p.add(x);
        }
        return p;
    }

    private static MqttProperties.IntegerProperty expiry(int seconds) {
        return new MqttProperties.IntegerProperty(MqttProperties.SESSION_EXPIRY_INTERVAL, seconds);
    }

    /** A 5.0 device connected with {@code connect}; its CONNACK is returned. */
    private MqttConnAckMessage connected(ProtocolFixture f, MqttMessageBuilders.ConnectBuilder connect) {
        EmbeddedChannel ch = f.deviceChannel();
        channels.add(ch);
        send(ch, connect.build());
        List<MqttMessage> out = written5(ch);
        release(out);
        assertEquals(1, out.size(), "packets: " + out);
        return assertInstanceOf(MqttConnAckMessage.class, out.get(0));
    }

    private EmbeddedChannel last() {
        return channels.get(channels.size() - 1);
    }

    private static MqttMessageBuilders.ConnectBuilder connect5(String clientId, int expirySeconds) {
        return MqttMessageBuilders.connect().protocolVersion(MqttVersion.MQTT_5).clientId(clientId)
                .cleanSession(false).keepAlive(60).properties(properties(expiry(expirySeconds)));
    }

    private static MqttMessageBuilders.ConnectBuilder withWill(MqttMessageBuilders.ConnectBuilder b, int delay) {
        return b.willFlag(true).willTopic("devices/dev-w/status").willQoS(MqttQoS.AT_LEAST_ONCE)
                .willMessage("gone".getBytes(StandardCharsets.UTF_8))
                .willProperties(properties(new MqttProperties.IntegerProperty(MqttProperties.WILL_DELAY_INTERVAL,
                        delay)));
    }

    private static MqttMessage disconnect(int reasonCode, MqttProperties properties) {
        return new MqttMessage(new MqttFixedHeader(MqttMessageType.DISCONNECT, false, MqttQoS.AT_MOST_ONCE, false, 0),
                new MqttReasonCodeAndPropertiesVariableHeader((byte) reasonCode, properties));
    }

    /** The server DISCONNECT written last to {@code ch}: its reason code (-1 when none was written). */
    private static MqttReasonCodeAndPropertiesVariableHeader serverDisconnectHeader(EmbeddedChannel ch) {
        List<MqttMessage> out = written5(ch);
        release(out);
        for (MqttMessage m : out) {
            if (m.fixedHeader().messageType() == MqttMessageType.DISCONNECT) {
                return (MqttReasonCodeAndPropertiesVariableHeader) m.variableHeader();
            }
        }
        return null;
    }

    private static int serverDisconnect(EmbeddedChannel ch) {
        List<MqttMessage> out = written5(ch);
        release(out);
        for (MqttMessage m : out) {
            if (m.fixedHeader().messageType() == MqttMessageType.DISCONNECT) {
                return ((MqttReasonCodeAndPropertiesVariableHeader) m.variableHeader()).reasonCode() & 0xFF;
            }
        }
        return -1;
    }

    // --- session expiry ---------------------------------------------------------------------------------------

    @Test
    void sessionExpiryReplacesCleanSessionAndIsResumedBeforeItExpires() {
        ProtocolFixture f = allowing();
        assertFalse(connected(f, connect5("dev-s", 300)).variableHeader().isSessionPresent());
        last().close();
        assertTrue(connected(f, connect5("dev-s", 300)).variableHeader().isSessionPresent(),
                "within its expiry the session is back");
    }

    @Test
    void expiryZeroEndsTheSessionWithTheConnection() {
        ProtocolFixture f = allowing();
        connected(f, connect5("dev-z", 300));
        last().close();
        // resumes it, but asks that it end with this connection
        assertTrue(connected(f, connect5("dev-z", 0)).variableHeader().isSessionPresent());
        last().close();
        assertFalse(connected(f, connect5("dev-z", 300)).variableHeader().isSessionPresent(), "deleted at disconnect");
    }

    @Test
    void cleanStartWithAnExpiryDiscardsTheOldSessionAndKeepsTheNewOne() {
        ProtocolFixture f = allowing();
        connected(f, connect5("dev-c", 300));
        last().close();
        assertFalse(connected(f, connect5("dev-c", 300).cleanSession(true)).variableHeader().isSessionPresent());
        last().close();
        assertTrue(connected(f, connect5("dev-c", 300)).variableHeader().isSessionPresent(), "the new one is kept");
    }

    @Test
    void anExpiryAboveSessionExpiryIsCappedAndTheGrantedOneNamedInConnAck() {
        ProtocolFixture f = allowing("session.expiry", "1h");
        MqttConnAckMessage ack = connected(f, connect5("dev-x", -1));
        assertEquals(3600, ack.variableHeader().properties().getProperty(MqttProperties.SESSION_EXPIRY_INTERVAL)
                .value(), "0xFFFFFFFF (never) is capped at session.expiry");
        MqttConnAckMessage asked = connected(f, connect5("dev-y", 60));
        assertNull(asked.variableHeader().properties().getProperty(MqttProperties.SESSION_EXPIRY_INTERVAL),
                "granted as asked: not repeated");
    }

    // --- DISCONNECT from the device ------------------------------------------------------------------------------

    @Test
    void normalDisconnectDiscardsTheWill() {
        ProtocolFixture f = allowing();
        connected(f, withWill(connect5("dev-w", 0), 0));
        send5(last(), disconnect(0x00, MqttProperties.NO_PROPERTIES));
        assertFalse(last().isOpen());
        assertEquals(DisconnectReason.CLIENT_DISCONNECT, ConnectionContext.of(last()).closeReason());
        assertEquals(0, f.sink.size(), "no will");
    }

    @Test
    void disconnectWithWillMessagePublishesTheWill() {
        ProtocolFixture f = allowing();
        connected(f, withWill(connect5("dev-w", 0), 0));
        send5(last(), disconnect(0x04, MqttProperties.NO_PROPERTIES));
        assertEquals(DisconnectReason.CLIENT_DISCONNECT_WITH_WILL, ConnectionContext.of(last()).closeReason());
        assertEquals("devices/dev-w/status", f.sink.next().message().topic());
    }

    @Test
    void aWillKeepsItsMessageExpiryInterval() {
        ProtocolFixture f = allowing();
        connected(f, connect5("dev-w", 0).willFlag(true).willTopic("devices/dev-w/status")
                .willQoS(MqttQoS.AT_LEAST_ONCE).willMessage("gone".getBytes(StandardCharsets.UTF_8))
                .willProperties(properties(new MqttProperties.IntegerProperty(
                        MqttProperties.PUBLICATION_EXPIRY_INTERVAL, 30))));
        send5(last(), disconnect(0x04, MqttProperties.NO_PROPERTIES));
        assertEquals(30L, f.sink.next().message().expiryInterval());
    }

    @Test
    void disconnectWithAnErrorReasonPublishesTheWill() {
        ProtocolFixture f = allowing();
        connected(f, withWill(connect5("dev-w", 0), 0));
        send5(last(), disconnect(0x83, MqttProperties.NO_PROPERTIES));
        assertEquals(DisconnectReason.CLIENT_ERROR, ConnectionContext.of(last()).closeReason());
        assertEquals(1, f.sink.size());
    }

    @Test
    void disconnectGivingAnExpiryToASessionThatHadNoneIsAProtocolError() {
        ProtocolFixture f = allowing();
        connected(f, connect5("dev-p", 0).cleanSession(true));
        send5(last(), disconnect(0x00, properties(expiry(60))));
        assertEquals(DisconnectReason.PROTOCOL_VIOLATION, ConnectionContext.of(last()).closeReason());
        assertEquals(0x82, serverDisconnect(last()), "told with DISCONNECT protocol error");
    }

    @Test
    void disconnectSettingExpiryZeroEndsTheSession() {
        ProtocolFixture f = allowing();
        connected(f, connect5("dev-e", 300));
        send5(last(), disconnect(0x00, properties(expiry(0))));
        assertFalse(connected(f, connect5("dev-e", 300)).variableHeader().isSessionPresent());
    }

    // --- will delay --------------------------------------------------------------------------------------------

    @Test
    void aDelayedWillWaitsWhenTheConnectionIsLost() {
        // the wait itself (an embedded channel's timers end with it) is DelayedWillsTest's and Mqtt5WillDelayIT's
        ProtocolFixture f = allowing();
        connected(f, withWill(connect5("dev-w", 300), 10));
        last().close();
        assertEquals(0, f.sink.size(), "not at once");
        assertEquals(1, f.services.wills().size());
    }

    @Test
    void aDelayedWillIsNotPublishedWhenTheSessionResumesFirst() {
        ProtocolFixture f = allowing();
        connected(f, withWill(connect5("dev-w", 300), 10));
        EmbeddedChannel first = last();
        first.close();
        assertEquals(1, f.services.wills().size());
        connected(f, connect5("dev-w", 300));
        assertEquals(0, f.services.wills().size(), "the session resumed within the delay: no will");
        assertEquals(0, f.sink.size());
    }

    @Test
    void aCleanStartPublishesTheDelayedWillOfTheSessionItEnds() {
        ProtocolFixture f = allowing();
        connected(f, withWill(connect5("dev-w", 300), 10));
        last().close();
        connected(f, connect5("dev-w", 300).cleanSession(true));
        assertEquals(1, f.sink.size());
    }

    @Test
    void theWillDelayIsCutToTheSessionExpiry() {
        ProtocolFixture f = allowing();
        connected(f, withWill(connect5("dev-w", 0).cleanSession(true), 10));
        last().close();
        assertEquals(1, f.sink.size(), "the session ended with the connection, so did the wait");
    }

    // --- server DISCONNECT -------------------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(DisconnectReason.class)
    void everyCloseTheGatewayDecidesIsToldToA5DeviceWithItsReasonCodeAndLabel(DisconnectReason reason) {
        ProtocolFixture f = allowing();
        connected(f, connect5("dev-r", 0));
        DeviceDisconnector.close(last(), reason);
        assertFalse(last().isOpen());
        MqttReasonCodeAndPropertiesVariableHeader told = serverDisconnectHeader(last());
        if (!reason.toldToDevice()) {
            assertNull(told);
            return;
        }
        assertEquals(reason.reasonCode(), told.reasonCode() & 0xFF);
        // a reason code alone in a two-byte body is what paho-mqtt 2.1 reads as 0x00
        assertEquals(reason.label(), told.properties().getProperty(MqttProperties.REASON_STRING).value());
    }

    @Test
    void theEncodedDisconnectIsWhatNettysEncoderMakesOfTheSameMessage() {
        for (DisconnectReason reason : DisconnectReason.values()) {
            if (!reason.toldToDevice()) {
                continue;
            }
            MqttProperties p = properties(new MqttProperties.StringProperty(MqttProperties.REASON_STRING,
                    reason.label()));
            EmbeddedChannel encoder = new EmbeddedChannel(MqttEncoder.INSTANCE);
            encoder.attr(ProtocolFixture.CODEC_VERSION).set(MqttVersion.MQTT_5);
            encoder.writeOutbound(MqttMessageBuilders.disconnect().reasonCode((byte) reason.reasonCode())
                    .properties(p).build());
            ByteBuf expected = encoder.readOutbound();
            try {
                assertEquals(ByteBufUtil.hexDump(expected), ByteBufUtil.hexDump(DeviceDisconnector.told(reason)),
                        reason.label());
            } finally {
                expected.release();
                encoder.finishAndReleaseAll();
            }
        }
    }

    @Test
    void aDeviceWhoseMaximumPacketSizeIsTooSmallForTheReasonStringGetsTheCodeAlone() {
        ProtocolFixture f = allowing();
        connected(f, connect5("dev-small", 0).properties(properties(expiry(0),
                new MqttProperties.IntegerProperty(MqttProperties.MAXIMUM_PACKET_SIZE, 8))));
        DeviceDisconnector.close(last(), DisconnectReason.KEEPALIVE_TIMEOUT);
        MqttReasonCodeAndPropertiesVariableHeader told = serverDisconnectHeader(last());
        assertEquals(0x8D, told.reasonCode() & 0xFF);
        assertNull(told.properties().getProperty(MqttProperties.REASON_STRING), "MQTT-3.14.2-3");
    }

    @Test
    void a311DeviceIsNeverSentDisconnect() {
        ProtocolFixture f = allowing();
        EmbeddedChannel ch = f.deviceChannel();
        channels.add(ch);
        send(ch, MqttMessageBuilders.connect().clientId("dev-3").cleanSession(true).keepAlive(60).build());
        release(written(ch));
        DeviceDisconnector.close(ch, DisconnectReason.KEEPALIVE_TIMEOUT);
        assertTrue(written(ch).isEmpty());
    }

    // --- a draining node ---------------------------------------------------------------------------------------

    @Test
    void aDrainingNodeWithAServerReferenceTellsA5DeviceToUseAnotherServer() {
        ProtocolFixture f = allowing();
        connected(f, connect5("dev-d", 0));
        DeviceDisconnector.drain(last(), "gw2.example.net:8883");
        assertFalse(last().isOpen());
        MqttReasonCodeAndPropertiesVariableHeader told = serverDisconnectHeader(last());
        assertEquals(0x9C, told.reasonCode() & 0xFF);
        assertEquals("gw2.example.net:8883", told.properties().getProperty(MqttProperties.SERVER_REFERENCE).value());
        assertEquals("use_another_server", told.properties().getProperty(MqttProperties.REASON_STRING).value());
        assertEquals(1, f.metrics.disconnects(DisconnectReason.USE_ANOTHER_SERVER));
    }

    @Test
    void aDrainingNodeWithoutAServerReferenceTellsA5DeviceServerShuttingDown() {
        ProtocolFixture f = allowing();
        connected(f, connect5("dev-d", 0));
        DeviceDisconnector.drain(last(), null);
        MqttReasonCodeAndPropertiesVariableHeader told = serverDisconnectHeader(last());
        assertEquals(0x8B, told.reasonCode() & 0xFF);
        assertNull(told.properties().getProperty(MqttProperties.SERVER_REFERENCE));
        assertEquals(1, f.metrics.disconnects(DisconnectReason.SHUTDOWN));
    }

    @Test
    void aServerReferenceThatWouldPassTheDevicesMaximumPacketSizeFallsBackToServerShuttingDown() {
        ProtocolFixture f = allowing();
        connected(f, connect5("dev-small", 0).properties(properties(expiry(0),
                new MqttProperties.IntegerProperty(MqttProperties.MAXIMUM_PACKET_SIZE, 30))));
        DeviceDisconnector.drain(last(), "a-rather-long-name-of-another-node.example.net:8883");
        MqttReasonCodeAndPropertiesVariableHeader told = serverDisconnectHeader(last());
        assertEquals(0x8B, told.reasonCode() & 0xFF, "MQTT-3.14.2-3: never more than the device takes");
        assertEquals(1, f.metrics.disconnects(DisconnectReason.SHUTDOWN));
    }

    @Test
    void aDrainingNodeClosesA311DeviceWithoutDisconnectCountedAsShutdown() {
        ProtocolFixture f = allowing();
        EmbeddedChannel ch = f.deviceChannel();
        channels.add(ch);
        send(ch, MqttMessageBuilders.connect().clientId("dev-3").cleanSession(true).keepAlive(60).build());
        release(written(ch));
        DeviceDisconnector.drain(ch, "gw2.example.net:8883");
        assertFalse(ch.isOpen());
        assertTrue(written(ch).isEmpty(), "3.1.1 has no server DISCONNECT");
        assertEquals(1, f.metrics.disconnects(DisconnectReason.SHUTDOWN));
    }

    @Test
    void aTakenOverSessionIsToldSessionTakenOver() {
        ProtocolFixture f = allowing();
        connected(f, connect5("dev-t", 300));
        EmbeddedChannel first = last();
        connected(f, connect5("dev-t", 300));
        first.runPendingTasks();
        assertFalse(first.isOpen());
        assertEquals(0x8E, serverDisconnect(first));
    }

    @Test
    void aMalformedPacketIsToldMalformedWithTheBrokenRule() {
        ProtocolFixture f = allowing();
        connected(f, connect5("dev-m", 0));
        // SUBSCRIBE with retain handling 3
        last().writeInbound(Unpooled.wrappedBuffer(new byte[] {(byte) 0x82, 7, 0, 1, 0, 0, 1, 'a', 0x31}));
        List<MqttMessage> out = written5(last());
        release(out);
        MqttReasonCodeAndPropertiesVariableHeader h = (MqttReasonCodeAndPropertiesVariableHeader) out.get(0)
                .variableHeader();
        assertEquals(0x81, h.reasonCode() & 0xFF);
        assertTrue(((String) h.properties().getProperty(MqttProperties.REASON_STRING).value())
                .startsWith("MQTT-3.8.3-5"));
    }

    @Test
    void anAuthPacketIsToldBadAuthenticationMethod() {
        ProtocolFixture f = allowing();
        connected(f, connect5("dev-a", 0));
        last().writeInbound(Unpooled.wrappedBuffer(new byte[] {(byte) 0xF0, 2, 0x18, 0}));
        assertEquals(DisconnectReason.BAD_AUTHENTICATION_METHOD, ConnectionContext.of(last()).closeReason());
        assertEquals(0x8C, serverDisconnect(last()));
    }
}
