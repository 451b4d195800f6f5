package io.mqttgw.bench.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.bench.sim.cli.BenchCommand;
import io.mqttgw.bench.sim.config.BenchOptions;
import io.mqttgw.bench.sim.config.Scenario;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPubReplyMessageVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttReasonCodeAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttReasonCodes;
import io.netty.util.ReferenceCountUtil;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A device's MQTT exchange with a server, over {@link EmbeddedChannel}s joined back to back: the device side has the
 * bench's codec and {@link DeviceHandler}, the server side a plain Netty MQTT codec playing the gateway.
 */
class Mqtt5DeviceTest {
    private DeviceFleet fleet;
    private EmbeddedChannel device;
    private EmbeddedChannel server;
    private Device d;

    @AfterEach
    void close() {
        if (device != null) {
            device.finishAndReleaseAll();
            server.finishAndReleaseAll();
        }
        if (fleet != null) {
            fleet.close();
        }
    }

    /** A fleet of one device with these options, its channel pair, and the CONNECT already at the server. */
    private MqttConnectMessage connect(String... args) {
        List<String> all = new java.util.ArrayList<>(List.of("--devices", "1", "--workers", "0", "--admin", "none"));
        all.addAll(List.of(args));
        BenchOptions o = BenchCommand.parseScenario(Scenario.CONNECT, all);
        fleet = new DeviceFleet(o.fleet(), o.profile(), o.run(), o.target(), null, 0, 1);
        device = new EmbeddedChannel(new MqttDecoder(), MqttEncoder.INSTANCE, new DeviceHandler(fleet));
        server = new EmbeddedChannel(new MqttDecoder(), MqttEncoder.INSTANCE);
        d = new Device(0, "dev-0", device.eventLoop(), fleet);
        d.state = Device.State.CONNECTING;
        d.channel = device;
        fleet.stats().connecting.incrementAndGet();
        device.attr(DeviceFleet.DEVICE).set(d);
        device.writeOutbound(fleet.connectMessage(d));
        toServer();
        return server.readInbound();
    }

    private void toServer() {
        for (ByteBuf b; (b = device.readOutbound()) != null; ) {
            server.writeInbound(b);
        }
    }

    private void toDevice(MqttMessage m) {
        server.writeOutbound(m);
        for (ByteBuf b; (b = server.readOutbound()) != null; ) {
            device.writeInbound(b);
        }
    }

    private Map<String, Long> failures() {
        return fleet.stats().snapshot().failures();
    }

    private static MqttMessage connack(MqttConnectReturnCode code) {
        return MqttMessageBuilders.connAck().returnCode(code).sessionPresent(false).build();
    }

    private void connected() {
        toDevice(connack(MqttConnectReturnCode.CONNECTION_ACCEPTED));
        assertEquals(Device.State.CONNECTED, d.state);
        toServer();
        ReferenceCountUtil.release(server.readInbound()); // the SUBSCRIBE
    }

    @Test
    void mqtt311ConnectIsProtocolLevel4WithoutProperties() {
        MqttConnectMessage c = connect();
        assertEquals(4, c.variableHeader().version());
        assertTrue(c.variableHeader().isCleanSession());
        assertTrue(c.variableHeader().properties().isEmpty());
    }

    @Test
    void mqtt5ConnectIsProtocolLevel5WithSessionExpiryAndReceiveMaximum() {
        MqttConnectMessage c = connect("--mqtt-version", "5", "--session-expiry", "300s", "--receive-maximum", "10");
        assertEquals(5, c.variableHeader().version());
        assertTrue(c.variableHeader().isCleanSession());
        MqttProperties p = c.variableHeader().properties();
        assertEquals(300, p.getProperty(MqttProperties.MqttPropertyType.SESSION_EXPIRY_INTERVAL.value()).value());
        assertEquals(10, p.getProperty(MqttProperties.MqttPropertyType.RECEIVE_MAXIMUM.value()).value());
        assertEquals("dev-0", c.payload().clientIdentifier());
    }

    @Test
    void mqtt5ConnackReasonCodeIsCountedByReason() {
        connect("--mqtt-version", "5");
        toDevice(connack(MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_BUSY));
        assertEquals(Map.of("connack_refused_server_busy", 1L), failures());
        assertFalse(device.isOpen());
        assertEquals(0, fleet.stats().connected());
    }

    @Test
    void mqtt5ConnackNotAuthorizedDropsNettysVersionSuffix() {
        connect("--mqtt-version", "5");
        toDevice(connack(MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED_5));
        assertEquals(Map.of("connack_refused_not_authorized", 1L), failures());
    }

    @Test
    void mqtt311RefusalKeepsItsLabel() {
        connect();
        toDevice(connack(MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED));
        assertEquals(Map.of("connack_refused_not_authorized", 1L), failures());
    }

    @Test
    void mqtt5PubackErrorReasonIsCountedAndNotAcknowledged() {
        connect("--mqtt-version", "5");
        connected();
        d.pendingPacketId = 7;
        d.pendingSentNanos = System.nanoTime();
        toDevice(new MqttMessage(new MqttFixedHeader(MqttMessageType.PUBACK, false, MqttQoS.AT_MOST_ONCE, false, 0),
                new MqttPubReplyMessageVariableHeader(7, MqttReasonCodes.PubAck.NOT_AUTHORIZED.byteValue(),
                        MqttProperties.NO_PROPERTIES)));
        var s = fleet.stats().snapshot();
        assertEquals(Map.of("puback_not_authorized", 1L), s.failures());
        assertEquals(0, s.acked());
        assertEquals(0, s.ackLatency().getTotalCount());
        assertEquals(0, d.pendingPacketId);
    }

    @Test
    void mqtt5PubackSuccessReasonIsAnAcknowledgement() {
        connect("--mqtt-version", "5");
        connected();
        d.pendingPacketId = 8;
        d.pendingSentNanos = System.nanoTime();
        toDevice(new MqttMessage(new MqttFixedHeader(MqttMessageType.PUBACK, false, MqttQoS.AT_MOST_ONCE, false, 0),
                new MqttPubReplyMessageVariableHeader(8, MqttReasonCodes.PubAck.NO_MATCHING_SUBSCRIBERS.byteValue(),
                        MqttProperties.NO_PROPERTIES)));
        var s = fleet.stats().snapshot();
        assertTrue(s.failures().isEmpty(), s.failures().toString());
        assertEquals(1, s.acked());
        assertEquals(1, s.ackLatency().getTotalCount());
    }

    @Test
    void mqtt5ServerDisconnectIsCountedByReasonAndClosesTheConnection() {
        connect("--mqtt-version", "5");
        connected();
        toDevice(new MqttMessage(new MqttFixedHeader(MqttMessageType.DISCONNECT, false, MqttQoS.AT_MOST_ONCE, false, 0),
                new MqttReasonCodeAndPropertiesVariableHeader(MqttReasonCodes.Disconnect.SERVER_BUSY.byteValue(),
                        MqttProperties.NO_PROPERTIES)));
        assertEquals(Map.of("disconnect_server_busy", 1L), failures());
        assertFalse(device.isOpen());
        assertEquals(1, fleet.stats().snapshot().unexpectedDisconnects());
    }

    @Test
    void mqtt5DisconnectBeforeConnackIsTheAttemptsFailure() {
        connect("--mqtt-version", "5");
        toDevice(new MqttMessage(new MqttFixedHeader(MqttMessageType.DISCONNECT, false, MqttQoS.AT_MOST_ONCE, false, 0),
                new MqttReasonCodeAndPropertiesVariableHeader(
                        MqttReasonCodes.Disconnect.CONNECTION_RATE_EXCEEDED.byteValue(),
                                MqttProperties.NO_PROPERTIES)));
        assertEquals(Map.of("disconnect_connection_rate_exceeded", 1L), failures());
        assertNull(d.channel);
    }
}
