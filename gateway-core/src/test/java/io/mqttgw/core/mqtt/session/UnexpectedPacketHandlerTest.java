package io.mqttgw.core.mqtt.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttQoS;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class UnexpectedPacketHandlerTest {
    private EmbeddedChannel ch;

    @BeforeEach
    void channel() {
        ch = new EmbeddedChannel();
        ch.attr(ConnectionContext.KEY).set(new ConnectionContext("tcp"));
        ch.pipeline().addLast(ProtocolFixture.defaultSessionHandler());
    }

    @AfterEach
    void finish() {
        ch.finishAndReleaseAll();
    }

    private static MqttMessage ack(MqttMessageType type) {
        return new MqttMessage(new MqttFixedHeader(type, false, MqttQoS.AT_MOST_ONCE, false, 2),
                MqttMessageIdVariableHeader.from(3));
    }

    @Test
    void closesOnASecondConnect() {
        ch.writeInbound(MqttMessageBuilders.connect().clientId("dev-1").cleanSession(true).build());
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.SECOND_CONNECT, ConnectionContext.of(ch).closeReason());
        assertNull(ch.readOutbound(), "no CONNACK");
    }

    @Test
    void closesWithProtocolViolationOnASubackFromTheDevice() {
        ch.writeInbound(MqttMessageBuilders.subAck().packetId(1).addGrantedQos(MqttQoS.AT_LEAST_ONCE).build());
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.PROTOCOL_VIOLATION, ConnectionContext.of(ch).closeReason());
    }

    @Test
    void closesWithProtocolViolationOnOtherServerPackets() {
        ch.writeInbound(MqttMessageBuilders.connAck().returnCode(MqttConnectReturnCode.CONNECTION_ACCEPTED).build());
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.PROTOCOL_VIOLATION, ConnectionContext.of(ch).closeReason());
    }

    @Test
    void closesWithProtocolViolationOnPingresp() {
        ch.writeInbound(MqttMessage.PINGRESP);
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.PROTOCOL_VIOLATION, ConnectionContext.of(ch).closeReason());
    }

    @ParameterizedTest
    @EnumSource(value = MqttMessageType.class, names = {"PUBACK", "PUBREC", "PUBCOMP"})
    void consumesDownlinkAcknowledgementsWithoutClosing(MqttMessageType type) {
        ch.writeInbound(ack(type));
        assertTrue(ch.isOpen());
        assertNull(ConnectionContext.of(ch).closeReason());
        assertNull(ch.readInbound(), "consumed");
        assertNull(ch.readOutbound());
    }

    @Test
    void closesWithInternalErrorOnSomethingThatIsNoMqttPacketAndReleasesIt() {
        ByteBuf stray = Unpooled.buffer(4).writeInt(42);
        ch.writeInbound(stray);
        assertEquals(0, stray.refCnt());
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.INTERNAL_ERROR, ConnectionContext.of(ch).closeReason());
    }
}
