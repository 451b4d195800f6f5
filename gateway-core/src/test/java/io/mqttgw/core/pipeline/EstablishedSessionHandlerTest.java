package io.mqttgw.core.pipeline;

import static io.mqttgw.core.testkit.ProtocolFixture.send;
import static io.mqttgw.core.testkit.ProtocolFixture.written;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageType;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one handler of an established session, in the device pipeline the gateway assembles: it does the work of the
 * invalid-packet and error handlers that leave the pipeline at CONNACK.
 */
class EstablishedSessionHandlerTest {
    @TempDir
    Path dir;
    private ProtocolFixture f;
    private EmbeddedChannel ch;

    @AfterEach
    void finish() {
        if (ch != null) {
            ch.finishAndReleaseAll();
        }
    }

    private void established() {
        f = ProtocolFixture.builder(dir).allowing().build();
        ch = f.deviceChannel();
        send(ch, MqttMessageBuilders.connect().clientId("dev-1").cleanSession(true).keepAlive(60).build());
        List<MqttMessage> out = written(ch);
        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED,
                ((io.netty.handler.codec.mqtt.MqttConnAckMessage) out.get(0)).variableHeader().connectReturnCode());
        assertTrue(ch.pipeline().get(HandlerNames.INVALID_PACKET) == null
                && ch.pipeline().get(HandlerNames.ERRORS) == null, "their work is the session handler's now");
    }

    @Test
    void anInvalidPacketAfterConnectClosesWithItsCountedReason() {
        established();
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {0x36, 0x06, 0x00, 0x01, 'a', 0x00, 0x01, 'x'})); // QoS 3
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.INVALID_FIXED_HEADER, ConnectionContext.of(ch).closeReason());
        assertEquals(1.0, f.metrics.disconnects(DisconnectReason.INVALID_FIXED_HEADER));
    }

    @Test
    void aSocketErrorAfterConnectIsCountedAsALostConnection() {
        established();
        ch.pipeline().fireExceptionCaught(new IOException("connection reset by peer"));
        assertFalse(ch.isOpen());
        assertEquals(1.0, f.metrics.disconnects(DisconnectReason.CONNECTION_LOST));
    }

    @Test
    void anUnexpectedErrorAfterConnectClosesWithInternalError() {
        established();
        ch.pipeline().fireExceptionCaught(new IllegalStateException("a gateway bug"));
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.INTERNAL_ERROR, ConnectionContext.of(ch).closeReason());
    }

    @Test
    void dispatchesEachPacketKindToItsClass() {
        established();
        send(ch, MqttMessage.PINGREQ);
        assertEquals(List.of(MqttMessageType.PINGRESP), types(written(ch)));
        send(ch, MqttMessageBuilders.subscribe().messageId(1).addSubscription(
                io.netty.handler.codec.mqtt.MqttQoS.AT_LEAST_ONCE, "devices/dev-1/commands").build());
        assertEquals(List.of(MqttMessageType.SUBACK), types(written(ch)));
        send(ch, MqttMessageBuilders.publish().topicName("up/1").qos(io.netty.handler.codec.mqtt.MqttQoS.AT_MOST_ONCE)
                .payload(Unpooled.wrappedBuffer(new byte[] {1})).build());
        assertEquals(1, f.sink.size(), "PUBLISH to the sink");
        send(ch, MqttMessage.DISCONNECT);
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.CLIENT_DISCONNECT, ConnectionContext.of(ch).closeReason());
    }

    @Test
    void isSharedByAllChannels() {
        assertTrue(ProtocolFixture.defaultSessionHandler().isSharable());
    }

    private static List<MqttMessageType> types(List<MqttMessage> messages) {
        return messages.stream().map(m -> m.fixedHeader().messageType()).toList();
    }
}
