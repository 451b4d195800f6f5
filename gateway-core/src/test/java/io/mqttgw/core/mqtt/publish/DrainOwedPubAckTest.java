package io.mqttgw.core.mqtt.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.mqttgw.core.testkit.ProtocolFixture.ManualSink;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A draining node closes a device only after writing the PUBACKs it owes for PUBLISHes its sink is still taking:
 * closed earlier, the device would send them again to the next node, and the sink would get them twice.
 */
class DrainOwedPubAckTest {
    private final ManualSink sink = new ManualSink();
    private EmbeddedChannel ch;

    @BeforeEach
    void openSession() {
        ch = new EmbeddedChannel();
        ConnectionContext context = new ConnectionContext("tcp");
        context.openSession("dev-1", ProtocolFixture.route("dev-1", 1), null, TopicAcl.ALLOW_ALL, false);
        ch.attr(ConnectionContext.KEY).set(context);
        ch.pipeline().addLast(ProtocolFixture.sessionHandler(
                new UplinkPublishHandler(sink, new GatewayMetrics(new SimpleMeterRegistry()), 32, true)));
    }

    @AfterEach
    void finish() {
        ch.finishAndReleaseAll();
    }

    @Test
    void writesThePubAcksItOwesBeforeClosingADrainedDevice() {
        ch.writeInbound(publish(1));
        ch.writeInbound(publish(2));

        DeviceDisconnector.drain(ch, null);
        ch.runPendingTasks();

        assertTrue(ch.isOpen(), "the sink still holds two PUBLISHes this device waits for");
        assertFalse(ch.config().isAutoRead(), "nothing more is read from a device being drained");
        sink.next().done().complete(null);
        ch.runPendingTasks();
        assertEquals(List.of("PUBACK 1"), acks());
        assertTrue(ch.isOpen());
        sink.next().done().complete(null);
        ch.runPendingTasks();
        assertEquals(List.of("PUBACK 2"), acks());
        assertFalse(ch.isOpen(), "closed once nothing is owed");
        assertEquals(DisconnectReason.SHUTDOWN, ConnectionContext.of(ch).closeReason());
    }

    @Test
    void closesADrainedDeviceWhoseSinkNeverAnswersAfterTheWait() {
        ch.writeInbound(publish(1));

        DeviceDisconnector.drain(ch, null);
        ch.runPendingTasks();
        assertTrue(ch.isOpen());

        ch.advanceTimeBy(DeviceDisconnector.OWED_ACKS_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertFalse(ch.isOpen(), "a sink that never answers does not keep the device");
        assertEquals(DisconnectReason.SHUTDOWN, ConnectionContext.of(ch).closeReason());
    }

    @Test
    void closesADrainedDeviceThatOwesNothingAtOnce() {
        ch.writeInbound(publish(1));
        sink.next().done().complete(null);
        ch.runPendingTasks();
        assertEquals(List.of("PUBACK 1"), acks());

        DeviceDisconnector.drain(ch, null);
        ch.runPendingTasks();
        assertFalse(ch.isOpen());
    }

    private static MqttPublishMessage publish(int packetId) {
        return MqttMessageBuilders.publish().topicName("up/" + packetId).qos(MqttQoS.AT_LEAST_ONCE)
                .messageId(packetId).payload(Unpooled.copiedBuffer("payload", StandardCharsets.UTF_8)).build();
    }

    private List<String> acks() {
        List<String> out = new ArrayList<>();
        for (Object o = ch.readOutbound(); o != null; o = ch.readOutbound()) {
            MqttMessage m = (MqttMessage) o;
            out.add(m.fixedHeader().messageType() + " "
                    + ((MqttMessageIdVariableHeader) m.variableHeader()).messageId());
        }
        return out;
    }
}
