package io.mqttgw.core.mqtt.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.pipeline.DeviceSocketHandler;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteStore;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.spi.UplinkRejectedException;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConnectionLifecycleHandlerTest {
    private static final UplinkMessage WILL = new UplinkMessage("dev-1", "status/dev-1", 1, true, new byte[] {1}, 0L);

    @TempDir
    Path dir;

    private ProtocolFixture f;
    private final RecordingRoutes routes = new RecordingRoutes();
    private SessionServices services;
    private final List<EmbeddedChannel> channels = new ArrayList<>();

    @BeforeEach
    void services() {
        use(ProtocolFixture.create(dir));
    }

    private void use(ProtocolFixture fixture) {
        f = fixture;
        services = new SessionServices(f.config, f.metrics, f.registry, f.auth, routes, f.sink, new EventLog(100),
                SessionServices.newEpochSource(), f.services.admission(), f.sessions);
    }

    @AfterEach
    void finish() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    private EmbeddedChannel channel() {
        EmbeddedChannel ch = new EmbeddedChannel(new DeviceSocketHandler(services));
        ch.attr(ConnectionContext.KEY).set(new ConnectionContext("tcp"));
        channels.add(ch);
        return ch;
    }

    private EmbeddedChannel session(String clientId, long epoch, UplinkMessage will) {
        EmbeddedChannel ch = channel();
        ConnectionContext.of(ch).openSession(clientId, ProtocolFixture.route(clientId, epoch), will, TopicAcl.ALLOW_ALL,
                false);
        f.registry.register(clientId, ch);
        return ch;
    }

    @Test
    void countsChannelsOpenAndClosedByReason() {
        EmbeddedChannel a = channel();
        EmbeddedChannel b = channel();
        EmbeddedChannel c = channel();
        assertEquals(3, f.metrics.channelsOpen());

        a.close();
        DeviceDisconnector.close(b, DisconnectReason.KEEPALIVE_TIMEOUT);
        assertEquals(1, f.metrics.channelsOpen());
        assertEquals(1.0, f.metrics.disconnects(DisconnectReason.CONNECTION_LOST), "no reason given: lost");
        assertEquals(1.0, f.metrics.disconnects(DisconnectReason.KEEPALIVE_TIMEOUT));
        assertEquals(DisconnectReason.CONNECTION_LOST, ConnectionContext.of(a).closeReason());

        c.close();
        assertEquals(0, f.metrics.channelsOpen());
        assertEquals(2.0, f.metrics.disconnects(DisconnectReason.CONNECTION_LOST));
    }

    @Test
    void countsEachCloseOnce() {
        EmbeddedChannel ch = channel();
        DeviceDisconnector.close(ch, DisconnectReason.PROTOCOL_VIOLATION);
        ch.close();
        DeviceDisconnector.close(ch, DisconnectReason.INTERNAL_ERROR);
        assertEquals(1.0, f.metrics.disconnects(DisconnectReason.PROTOCOL_VIOLATION));
        assertEquals(0.0, f.metrics.disconnects(DisconnectReason.INTERNAL_ERROR));
        assertEquals(0, f.metrics.channelsOpen());
    }

    @Test
    void leavesRegistryAndRoutesAloneWithoutASession() {
        EmbeddedChannel ch = channel();
        f.registry.register("dev-1", ch); // not this connection's entry to remove: no session
        ch.close();
        assertSame(ch, f.registry.find("dev-1"));
        assertTrue(routes.removed.isEmpty());
        assertEquals(0, f.sink.size());
    }

    @Test
    void removesTheRegistryEntryWhenItStillHoldsThisChannel() {
        EmbeddedChannel ch = session("dev-1", 1, null);
        ch.close();
        assertEquals(0, f.registry.size());
    }

    @Test
    void keepsTheRegistryEntryOfANewerChannel() {
        EmbeddedChannel older = session("dev-1", 1, null);
        EmbeddedChannel newer = session("dev-1", 2, null);

        DeviceDisconnector.close(older, DisconnectReason.TAKEOVER);

        assertSame(newer, f.registry.find("dev-1"));
    }

    @Test
    void queuesTheFencedRemovalOfItsOwnRoute() {
        EmbeddedChannel ch = session("dev-1", 41, null);
        Route route = ConnectionContext.of(ch).route();

        ch.close();

        assertEquals(List.of(route), routes.removed, "removes exactly its own route (node and epoch)");
    }

    @Test
    void sendsTheWillWhenTheSessionEndsWithoutDisconnect() {
        EmbeddedChannel ch = session("dev-1", 1, WILL);

        long before = System.currentTimeMillis();
        DeviceDisconnector.close(ch, DisconnectReason.KEEPALIVE_TIMEOUT);

        assertEquals(1, f.sink.size());
        assertWill(f.sink.next().message(), before);
        assertEquals(1.0, f.metrics.publishesReceived(1), "the will counts as a received PUBLISH");
    }

    private static void assertWill(UplinkMessage sent, long notBefore) {
        assertEquals(WILL.clientId(), sent.clientId());
        assertEquals(WILL.topic(), sent.topic());
        assertEquals(WILL.qos(), sent.qos());
        assertEquals(WILL.retain(), sent.retain());
        assertSame(WILL.payload(), sent.payload());
        assertTrue(sent.receivedAtMillis() >= notBefore && sent.receivedAtMillis() <= System.currentTimeMillis(),
                "stamped when the will is published");
    }

    @Test
    void countsARefusedWill() {
        use(ProtocolFixture.builder(dir)
                .sinkAnswers(m -> CompletableFuture.failedFuture(new UplinkRejectedException("full"))).build());
        EmbeddedChannel ch = session("dev-1", 1, WILL);
        ch.close();
        assertEquals(1.0, f.counter("mqttgw.uplink.refused"));
        assertEquals(0.0, f.counter("mqttgw.uplink.failed"));
    }

    @Test
    void countsAWillRefusedThroughADependentStageAsRefused() {
        // a sink may return a stage derived from another; its failure then arrives wrapped in CompletionException
        use(ProtocolFixture.builder(dir).sinkAnswers(m -> CompletableFuture.<Void>failedFuture(
                new UplinkRejectedException("full")).thenApply(ignored -> null)).build());
        EmbeddedChannel ch = session("dev-1", 1, WILL);
        ch.close();
        assertEquals(1.0, f.counter("mqttgw.uplink.refused"), "refused, as the uplink handler counts it");
        assertEquals(0.0, f.counter("mqttgw.uplink.failed"));
    }

    @Test
    void sendsTheWillWhenTheConnectionIsLost() {
        EmbeddedChannel ch = session("dev-1", 1, WILL);
        long before = System.currentTimeMillis();
        ch.close();
        assertWill(f.sink.next().message(), before);
    }

    @Test
    void doesNotSendTheWillAfterClientDisconnect() {
        EmbeddedChannel ch = session("dev-1", 1, WILL);
        DeviceDisconnector.close(ch, DisconnectReason.CLIENT_DISCONNECT);
        assertEquals(0, f.sink.size());
    }

    @Test
    void sendsNothingWithoutAWill() {
        EmbeddedChannel ch = session("dev-1", 1, null);
        DeviceDisconnector.close(ch, DisconnectReason.KEEPALIVE_TIMEOUT);
        assertEquals(0, f.sink.size());
    }

    /** A route store that records what it was asked to remove. */
    static final class RecordingRoutes implements RouteStore {
        final List<Route> removed = new ArrayList<>();

        @Override
        public CompletionStage<Void> put(Route route) {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Void> remove(Route route) {
            removed.add(route);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletionStage<Optional<Route>> lookup(String clientId) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
    }
}
