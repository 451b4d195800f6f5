package io.mqttgw.core.mqtt.connect;

import static io.mqttgw.core.testkit.ProtocolFixture.release;
import static io.mqttgw.core.testkit.ProtocolFixture.send;
import static io.mqttgw.core.testkit.ProtocolFixture.written;
import static io.mqttgw.core.testkit.ProtocolFixture.written5;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.connection.KeepAliveWheel;
import io.mqttgw.core.connection.ProtocolCapabilities;
import io.mqttgw.core.spi.AuthResult;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttVersion;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CONNECT phase of an MQTT 5.0 device: capabilities from CONNECT, CONNACK properties, 5.0 refusal codes. */
class Mqtt5ConnectHandlerTest {
    @TempDir
    Path dir;

    private EmbeddedChannel ch;

    @AfterEach
    void releaseChannel() {
        if (ch != null) {
            ch.finishAndReleaseAll();
        }
    }

    private static MqttMessageBuilders.ConnectBuilder connect5(String clientId) {
        return MqttMessageBuilders.connect().protocolVersion(MqttVersion.MQTT_5).clientId(clientId)
                .cleanSession(true).keepAlive(60);
    }

    private static MqttProperties properties(MqttProperties.MqttProperty<?>... each) {
        MqttProperties p = new MqttProperties();
        for (MqttProperties.MqttProperty<?> x : each) {
            p.add(x);
        }
        return p;
    }

    private static MqttProperties.IntegerProperty integer(int id, int value) {
        return new MqttProperties.IntegerProperty(id, value);
    }

    /** The only packet written, an MQTT 5.0 CONNACK. */
    private static MqttConnAckMessage onlyConnAck5(EmbeddedChannel ch) {
        List<MqttMessage> out = written5(ch);
        try {
            assertEquals(1, out.size(), "packets written: " + out);
            return assertInstanceOf(MqttConnAckMessage.class, out.get(0));
        } finally {
            release(out);
        }
    }

    private static Object property(MqttConnAckMessage ack, int id) {
        MqttProperties.MqttProperty<?> p = ack.variableHeader().properties().getProperty(id);
        return p == null ? null : p.value();
    }

    private ProtocolFixture allowing(String... overrides) {
        ProtocolFixture f = ProtocolFixture.builder(dir).with(overrides).allowing().build();
        return f;
    }

    @Test
    void acceptsMqtt5AndAnnouncesTheGatewaysLimitsInConnAck() {
        ProtocolFixture f = allowing("mqtt.max-inflight-uplink", "20", "mqtt.max-packet-size", "4096",
                "mqtt.topic-alias-maximum", "8");
        ch = f.deviceChannel();
        send(ch, connect5("dev-5").properties(properties(integer(MqttProperties.RECEIVE_MAXIMUM, 10),
                integer(MqttProperties.MAXIMUM_PACKET_SIZE, 2000), integer(MqttProperties.TOPIC_ALIAS_MAXIMUM, 4),
                integer(MqttProperties.REQUEST_PROBLEM_INFORMATION, 0))).build());

        MqttConnAckMessage ack = onlyConnAck5(ch);
        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, ack.variableHeader().connectReturnCode());
        assertEquals(20, property(ack, MqttProperties.RECEIVE_MAXIMUM), "the uplink window");
        assertEquals(4096, property(ack, MqttProperties.MAXIMUM_PACKET_SIZE));
        assertEquals(8, property(ack, MqttProperties.TOPIC_ALIAS_MAXIMUM));
        assertEquals(1, property(ack, MqttProperties.RETAIN_AVAILABLE));
        assertEquals(1, property(ack, MqttProperties.WILDCARD_SUBSCRIPTION_AVAILABLE));
        assertEquals(1, property(ack, MqttProperties.SUBSCRIPTION_IDENTIFIER_AVAILABLE));
        assertEquals(0, property(ack, MqttProperties.SHARED_SUBSCRIPTION_AVAILABLE));
        assertNull(property(ack, MqttProperties.MAXIMUM_QOS), "QoS 2 is taken: maximum QoS left out");
        assertNull(property(ack, MqttProperties.ASSIGNED_CLIENT_IDENTIFIER), "the device named itself");
        assertNull(property(ack, MqttProperties.SERVER_KEEP_ALIVE), "no keepalive cap configured");

        ProtocolCapabilities c = ConnectionContext.of(ch).capabilities();
        assertEquals(MqttVersion.MQTT_5, c.version());
        assertTrue(c.reasonCodes());
        assertEquals(10, c.receiveMaximum());
        assertEquals(2000, c.maximumPacketSize());
        assertEquals(4, c.topicAliasMaximum());
        assertFalse(c.problemInformation());
        assertTrue(ConnectionContext.of(ch).sessionOpen());
    }

    @Test
    void a5DeviceWithoutLimitsSharesOneCapabilitiesObjectAnd311KeepsItsConstant() {
        ProtocolFixture f = allowing();
        ch = f.deviceChannel();
        send(ch, connect5("dev-5").build());
        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, onlyConnAck5(ch).variableHeader().connectReturnCode());
        assertSame(ProtocolCapabilities.MQTT_5, ConnectionContext.of(ch).capabilities());

        EmbeddedChannel old = f.deviceChannel();
        try {
            send(old, MqttMessageBuilders.connect().clientId("dev-3").cleanSession(true).keepAlive(60).build());
            release(written(old));
            assertSame(ProtocolCapabilities.MQTT_3_1_1, ConnectionContext.of(old).capabilities());
        } finally {
            old.finishAndReleaseAll();
        }
    }

    @Test
    void capabilitiesReachTheConnectionOnlyWithTheAcceptingConnAck() {
        ProtocolFixture f = ProtocolFixture.create(dir);
        ch = f.deviceChannel();
        send(ch, connect5("dev-5").build());
        assertSame(ProtocolCapabilities.MQTT_3_1_1, ConnectionContext.of(ch).capabilities(),
                "no server DISCONNECT may be sent before CONNACK (MQTT-3.14.0-1)");
        f.auth.next().answer().complete(AuthResult.ALLOWED);
        assertSame(ProtocolCapabilities.MQTT_5, ConnectionContext.of(ch).capabilities());
        release(written5(ch));
    }

    @Test
    void assignsTheClientIdOfADeviceThatSentAnEmptyOne() {
        ProtocolFixture f = allowing();
        ch = f.deviceChannel();
        // 5.0 allows an empty client id without clean start
        send(ch, connect5("").cleanSession(false).build());

        MqttConnAckMessage ack = onlyConnAck5(ch);
        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, ack.variableHeader().connectReturnCode());
        String assigned = (String) property(ack, MqttProperties.ASSIGNED_CLIENT_IDENTIFIER);
        assertTrue(assigned != null && assigned.startsWith("auto-"), "assigned: " + assigned);
        assertEquals(assigned, ConnectionContext.of(ch).clientId());
    }

    @Test
    void capsALongerKeepAliveWithServerKeepAlive() {
        ProtocolFixture f = allowing("mqtt.max-keep-alive", "30s");
        ch = f.deviceChannel();
        send(ch, connect5("dev-5").keepAlive(120).build());
        assertEquals(30, property(onlyConnAck5(ch), MqttProperties.SERVER_KEEP_ALIVE));
        assertTrue(KeepAliveWheel.watched(ch));
    }

    @Test
    void givesADeviceWithoutKeepAliveTheCap() {
        ProtocolFixture f = allowing("mqtt.max-keep-alive", "30s");
        ch = f.deviceChannel();
        send(ch, connect5("dev-5").keepAlive(0).build());
        assertEquals(30, property(onlyConnAck5(ch), MqttProperties.SERVER_KEEP_ALIVE));
        assertTrue(KeepAliveWheel.watched(ch), "the imposed keepalive is checked");
    }

    @Test
    void leavesAShorterKeepAliveAlone() {
        ProtocolFixture f = allowing("mqtt.max-keep-alive", "30s");
        ch = f.deviceChannel();
        send(ch, connect5("dev-5").keepAlive(10).build());
        assertNull(property(onlyConnAck5(ch), MqttProperties.SERVER_KEEP_ALIVE));
    }

    @Test
    void refusesAnAuthenticationMethodWithBadAuthenticationMethod() {
        ProtocolFixture f = ProtocolFixture.create(dir);
        ch = f.deviceChannel();
        send(ch, connect5("dev-5").properties(properties(
                new MqttProperties.StringProperty(MqttProperties.AUTHENTICATION_METHOD, "SCRAM-SHA-256"))).build());

        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_BAD_AUTHENTICATION_METHOD,
                onlyConnAck5(ch).variableHeader().connectReturnCode());
        assertFalse(ch.isOpen());
        assertTrue(f.auth.requests.isEmpty(), "the authenticator is not asked");
        assertEquals(1.0, f.metrics.disconnects(DisconnectReason.BAD_AUTHENTICATION_METHOD));
        assertEquals(1.0, f.metrics.connects(MqttConnectReturnCode.CONNECTION_REFUSED_BAD_AUTHENTICATION_METHOD));
    }

    private MqttConnectReturnCode refusedWhenTheAuthenticatorSays(AuthResult.Decision decision) {
        ProtocolFixture f = ProtocolFixture.create(dir);
        ch = f.deviceChannel();
        send(ch, connect5("dev-5").build());
        f.auth.next().answer().complete(AuthResult.deny(decision));
        MqttConnectReturnCode code = onlyConnAck5(ch).variableHeader().connectReturnCode();
        assertFalse(ch.isOpen());
        ch.finishAndReleaseAll();
        ch = null;
        return code;
    }

    @Test
    void authenticatorRefusalsCarry5ReasonCodes() {
        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED_5,
                refusedWhenTheAuthenticatorSays(AuthResult.Decision.NOT_AUTHORIZED));
        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_BAD_USERNAME_OR_PASSWORD,
                refusedWhenTheAuthenticatorSays(AuthResult.Decision.BAD_CREDENTIALS));
        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE_5,
                refusedWhenTheAuthenticatorSays(AuthResult.Decision.SERVER_UNAVAILABLE));
    }

    @Test
    void refusesWithServerBusyWhenOverloaded() {
        ProtocolFixture f = ProtocolFixture.create(dir, "admission.reject-delay", "0s");
        f.services.admission().refuseConnects(true);
        ch = f.deviceChannel();
        send(ch, connect5("dev-5").build());
        ch.runPendingTasks();
        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_BUSY,
                onlyConnAck5(ch).variableHeader().connectReturnCode());
        assertEquals(1.0, f.metrics.disconnects(DisconnectReason.OVERLOADED));
    }

    @Test
    void refusesATooLongClientIdAsClientIdentifierNotValid() {
        ProtocolFixture f = ProtocolFixture.create(dir, "mqtt.max-client-id-length", "4");
        ch = f.deviceChannel();
        send(ch, connect5("dev-55").build());
        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_CLIENT_IDENTIFIER_NOT_VALID,
                onlyConnAck5(ch).variableHeader().connectReturnCode());
        assertEquals(1.0, f.metrics.connects(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED),
                "one result label for both protocols");
    }

    @Test
    void refusesAWildcardWillTopicAsTopicNameInvalid() {
        ProtocolFixture f = ProtocolFixture.create(dir);
        ch = f.deviceChannel();
        // level 5, will QoS 1 on "status/+", empty property blocks (Netty's encoder refuses to write it, so by hand)
        ch.writeInbound(io.netty.buffer.Unpooled.wrappedBuffer(new byte[] {0x10, 35, 0, 4, 'M', 'Q', 'T', 'T', 5,
                0x0E, 0, 60, 0, 0, 5, 'd', 'e', 'v', '-', '5', 0, 0, 8, 's', 't', 'a', 't', 'u', 's', '/', '+', 0, 4,
                'g', 'o', 'n', 'e'}));
        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_TOPIC_NAME_INVALID,
                onlyConnAck5(ch).variableHeader().connectReturnCode());
        assertEquals(1.0, f.metrics.disconnects(DisconnectReason.INVALID_TOPIC));
    }

    @Test
    void willPropertiesTravelWithTheWill() {
        ProtocolFixture f = allowing();
        ch = f.deviceChannel();
        MqttProperties will = properties(new MqttProperties.StringProperty(MqttProperties.CONTENT_TYPE, "text/plain"),
                integer(MqttProperties.PAYLOAD_FORMAT_INDICATOR, 1));
        MqttConnectMessage connect = connect5("dev-5").willFlag(true).willTopic("devices/dev-5/status")
                .willMessage("gone".getBytes(StandardCharsets.UTF_8)).willQoS(MqttQoS.AT_LEAST_ONCE)
                .willProperties(will).build();
        send(ch, connect);
        release(written5(ch));
        var message = ConnectionContext.of(ch).will();
        assertEquals("text/plain", message.properties().contentType());
        assertTrue(message.properties().utf8Payload());
    }
}
