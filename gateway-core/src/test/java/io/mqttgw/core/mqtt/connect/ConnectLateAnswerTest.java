package io.mqttgw.core.mqtt.connect;

import static io.mqttgw.core.testkit.ProtocolFixture.release;
import static io.mqttgw.core.testkit.ProtocolFixture.send;
import static io.mqttgw.core.testkit.ProtocolFixture.written;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.admission.AdmissionControl;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.mqttgw.core.pipeline.DeviceChannelInitializer;
import io.mqttgw.core.spi.AuthResult;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.spi.Subscription;
import io.mqttgw.core.testkit.ForwardingSessionStore;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An asynchronous answer (authenticator, session store) that arrives after the connection closed, or after its wait
 * ended, changes nothing: CONNECT checks it against the state it was awaited in.
 */
class ConnectLateAnswerTest {
    @TempDir
    Path dir;

    private EmbeddedChannel ch;

    @AfterEach
    void releaseChannel() {
        if (ch != null) {
            ch.finishAndReleaseAll();
        }
    }

    private static MqttConnectMessage connect(String clientId, boolean cleanSession) {
        return MqttMessageBuilders.connect().clientId(clientId).cleanSession(cleanSession).keepAlive(60).build();
    }

    /** The in-memory store, whose opens the test answers. */
    private static final class SlowSessions extends ForwardingSessionStore {
        final CompletableFuture<StoredSession> opened = new CompletableFuture<>();

        SlowSessions(SessionStore delegate) {
            super(delegate);
        }

        @Override
        public CompletionStage<StoredSession> open(String clientId, boolean cleanStart, long expiryMillis,
                                                   long epoch) {
            delegate().open(clientId, cleanStart, expiryMillis, epoch);
            return opened;
        }
    }

    @Test
    void ignoresAnAuthenticationAnswerThatArrivesAfterTheConnectionClosed() {
        ProtocolFixture f = ProtocolFixture.create(dir);
        ch = f.deviceChannel();
        send(ch, connect("dev-1", true));
        CompletableFuture<AuthResult> answer = f.auth.next().answer();

        ch.close().syncUninterruptibly();
        answer.complete(AuthResult.ALLOWED);
        ch.runPendingTasks();

        assertNull(ch.readOutbound(), "no CONNACK for a closed connection");
        assertNull(f.registry.find("dev-1"), "a closed connection is never registered");
        assertFalse(ConnectionContext.of(ch).sessionOpen());
        assertEquals(0.0, f.metrics.connects(MqttConnectReturnCode.CONNECTION_ACCEPTED));
    }

    @Test
    void ignoresAnAuthenticationAnswerThatArrivesAfterTheAuthenticationTimeout() {
        ProtocolFixture f = ProtocolFixture.create(dir, "auth.timeout", "50ms");
        ch = f.deviceChannel();
        send(ch, connect("dev-1", true));
        CompletableFuture<AuthResult> answer = f.auth.next().answer();
        ch.advanceTimeBy(60, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        List<MqttMessage> refused = written(ch);
        try {
            assertEquals(1, refused.size());
            assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE,
                    assertInstanceOf(MqttConnAckMessage.class, refused.get(0)).variableHeader().connectReturnCode());
        } finally {
            release(refused);
        }

        answer.complete(AuthResult.ALLOWED);
        ch.runPendingTasks();

        assertNull(ch.readOutbound(), "the late ALLOW writes nothing");
        assertNull(f.registry.find("dev-1"));
        assertFalse(ConnectionContext.of(ch).sessionOpen());
    }

    @Test
    void ignoresAStoredSessionThatArrivesAfterTheOpenTimeout() {
        ProtocolFixture f = ProtocolFixture.builder(dir).with("session.open-timeout", "100ms").allowing().build();
        SlowSessions sessions = new SlowSessions(f.sessions);
        SessionServices services = new SessionServices(f.config, f.metrics, f.registry, f.auth, f.routes, f.sink,
                new EventLog(1000), SessionServices.newEpochSource(),
                new AdmissionControl(0, 0, new SimpleMeterRegistry()), sessions);
        ch = new EmbeddedChannel(new DeviceChannelInitializer("tcp", services, null, null, false));
        send(ch, connect("dev-1", false));
        assertNull(ch.readOutbound(), "CONNACK waits for the stored session");
        assertFalse(ch.config().isAutoRead());

        ch.advanceTimeBy(150, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        List<MqttMessage> out = written(ch);
        try {
            assertEquals(1, out.size());
            MqttConnAckMessage ack = assertInstanceOf(MqttConnAckMessage.class, out.get(0));
            assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, ack.variableHeader().connectReturnCode());
            assertFalse(ack.variableHeader().isSessionPresent(), "served as a new session without the store");
        } finally {
            release(out);
        }
        assertEquals(1.0, f.metrics.sessionsOpened("unavailable"));

        // the store answers late with a session that has a subscription: it is not put back a second time
        sessions.opened.complete(new SessionStore.StoredSession(true,
                Map.of("cmd/#", new Subscription(1, false, 0, 0)), List.of()));
        ch.runPendingTasks();
        assertNull(ch.readOutbound(), "no second CONNACK");
        assertEquals(0.0, f.metrics.sessionsOpened("resumed"));
        assertSame(io.mqttgw.core.spi.Subscriptions.NONE, ConnectionContext.of(ch).subscriptions());
        assertTrue(ch.isOpen());
        assertSame(ch, f.registry.find("dev-1"));
    }
}
