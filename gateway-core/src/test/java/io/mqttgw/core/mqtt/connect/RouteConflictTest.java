package io.mqttgw.core.mqtt.connect;

import static io.mqttgw.core.testkit.ProtocolFixture.release;
import static io.mqttgw.core.testkit.ProtocolFixture.send;
import static io.mqttgw.core.testkit.ProtocolFixture.written;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.admission.AdmissionControl;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.mqttgw.core.pipeline.DeviceChannelInitializer;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteConflictException;
import io.mqttgw.core.spi.RouteStore;
import io.mqttgw.core.testkit.InertRouteStore;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.mqttgw.core.testkit.TestPki;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A route table that refuses the route (another node holds the client id for a connection proven the other way): a
 * connection without a certificate is refused before it is served, a certificate connection is closed after; neither
 * publishes its will, as the identity was never theirs to use.
 */
class RouteConflictTest {
    @TempDir
    Path dir;

    /** Route writes answered by the test. */
    static final class RefusingRoutes extends InertRouteStore {
        final CompletableFuture<Void> answer = new CompletableFuture<>();

        @Override
        public CompletionStage<Void> put(Route route) {
            return answer;
        }
    }

    private static EmbeddedChannel channel(ProtocolFixture f, RouteStore routes) {
        SessionServices services = new SessionServices(f.config, f.metrics, f.registry, f.auth, routes, f.sink,
                new EventLog(1000), SessionServices.newEpochSource(),
                new AdmissionControl(0, 0, new SimpleMeterRegistry()), f.sessions);
        return new EmbeddedChannel(new DeviceChannelInitializer("tcp", services, null, null, false));
    }

    private static void connectWithWill(EmbeddedChannel ch) {
        send(ch, MqttMessageBuilders.connect().clientId("device-1").cleanSession(true).keepAlive(60).willFlag(true)
                .willTopic("status/device-1").willMessage("gone".getBytes(StandardCharsets.UTF_8))
                .willQoS(MqttQoS.AT_MOST_ONCE).build());
    }

    private static List<MqttMessage> out(EmbeddedChannel ch) {
        ch.runPendingTasks();
        return written(ch);
    }

    @Test
    void aConnectionWithoutCertificateIsRefusedWithoutItsWillWhenTheTableRefusesItsRoute() {
        ProtocolFixture f = ProtocolFixture.builder(dir).allowing().build();
        RefusingRoutes routes = new RefusingRoutes();
        EmbeddedChannel ch = channel(f, routes);
        try {
            connectWithWill(ch);
            List<MqttMessage> before = out(ch);
            assertEquals(List.of(), before, "no CONNACK before the route table answered");

            routes.answer.completeExceptionally(new RouteConflictException("device-1"));
            List<MqttMessage> after = out(ch);
            try {
                MqttConnAckMessage connAck = assertInstanceOf(MqttConnAckMessage.class, after.get(0));
                assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED,
                        connAck.variableHeader().connectReturnCode());
            } finally {
                release(after);
            }
            ch.runPendingTasks();
            assertFalse(ch.isOpen());
            assertEquals(DisconnectReason.IDENTITY_CONFLICT, ConnectionContext.of(ch).closeReason());
            assertEquals(0, f.sink.size(), "the will was not published");
            assertEquals(1.0, f.metrics.identitiesRejected(GatewayMetrics.PROOF_CONFLICT));
            assertNull(f.registry.find("device-1"));
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void aCertificateConnectionIsClosedWithoutItsWillWhenTheTableRefusesItsRouteLater() {
        ProtocolFixture f = ProtocolFixture.builder(dir).allowing().build();
        RefusingRoutes routes = new RefusingRoutes();
        EmbeddedChannel ch = channel(f, routes);
        try {
            ConnectionContext.of(ch).verifiedCertificate(
                    TestPki.create(dir.resolve("pki")).device("device-1").getCertificate(), "device-1");
            connectWithWill(ch);
            List<MqttMessage> served = out(ch);
            try {
                assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, assertInstanceOf(MqttConnAckMessage.class,
                        served.get(0)).variableHeader().connectReturnCode(), "served without waiting");
            } finally {
                release(served);
            }

            routes.answer.completeExceptionally(new RouteConflictException("device-1"));
            ch.runPendingTasks();
            assertFalse(ch.isOpen());
            assertEquals(DisconnectReason.IDENTITY_CONFLICT, ConnectionContext.of(ch).closeReason());
            assertEquals(0, f.sink.size(), "the will was not published");
            assertNull(f.registry.find("device-1"));
        } finally {
            ch.finishAndReleaseAll();
        }
    }
}
