package io.mqttgw.core.mqtt.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.pipeline.DeviceSocketHandler;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttMessage;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DisconnectHandlerTest {
    private static final UplinkMessage WILL = new UplinkMessage("dev-1", "status/dev-1", 1, false, new byte[] {0}, 0L);

    @TempDir
    Path dir;

    private EmbeddedChannel ch;

    @AfterEach
    void finish() {
        ch.finishAndReleaseAll();
    }

    private ConnectionContext session(EmbeddedChannel channel) {
        ConnectionContext context = new ConnectionContext("tcp");
        context.openSession("dev-1", ProtocolFixture.route("dev-1", 1), WILL, TopicAcl.ALLOW_ALL, false);
        channel.attr(ConnectionContext.KEY).set(context);
        return context;
    }

    @Test
    void discardsTheWillAndClosesWithClientDisconnect() {
        ch = new EmbeddedChannel(ProtocolFixture.defaultSessionHandler());
        ConnectionContext context = session(ch);
        assertNotNull(context.will());

        ch.writeInbound(MqttMessage.DISCONNECT);

        assertNull(context.will(), "MQTT-3.14.4-3: the will is discarded");
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.CLIENT_DISCONNECT, context.closeReason());
        assertNull(ch.readInbound());
        assertNull(ch.readOutbound(), "nothing is sent back");
    }

    @Test
    void theWillDoesNotReachTheSinkAfterDisconnect() {
        ProtocolFixture f = ProtocolFixture.create(dir);
        ch = new EmbeddedChannel(new DeviceSocketHandler(f.services), f.sessionHandler());
        session(ch);
        f.registry.register("dev-1", ch);

        ch.writeInbound(MqttMessage.DISCONNECT);

        assertEquals(0, f.sink.size(), "no will after a DISCONNECT");
        assertEquals(1.0, f.metrics.disconnects(DisconnectReason.CLIENT_DISCONNECT));
        assertNull(f.registry.find("dev-1"));
    }

    @Test
    void otherPacketsKeepTheWillAndTheConnection() {
        ch = new EmbeddedChannel(ProtocolFixture.defaultSessionHandler());
        ConnectionContext context = session(ch);
        ch.writeInbound(MqttMessage.PINGREQ);
        assertNull(ch.readInbound());
        assertTrue(ch.isOpen());
        assertNotNull(context.will());
    }
}
