package io.mqttgw.core.mqtt.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.connection.Mqtt5Session;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.pipeline.DeviceSocketHandler;
import io.mqttgw.core.spi.DelayedWillStore;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.testkit.ForwardingSessionStore;
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

/** A connection's delayed will with a session store the fleet shares: it waits there, not on the node. */
class FleetWillArmingTest {
    private static final UplinkMessage WILL = new UplinkMessage("dev-1", "status/dev-1", 1, false, new byte[] {1}, 0L);

    @TempDir
    Path dir;

    private ProtocolFixture f;
    private SessionServices services;
    private final RecordingWills fleet = new RecordingWills();
    private final List<EmbeddedChannel> channels = new ArrayList<>();

    /** What was armed, and the answer the test gives. */
    record Arming(String sessionKey, long epoch, long delayMillis, UplinkMessage will,
                  CompletableFuture<DelayedWillStore.Armed> answer) {
    }

    static final class RecordingWills implements DelayedWillStore {
        final List<Arming> armed = new ArrayList<>();

        @Override
        public CompletionStage<Armed> arm(String sessionKey, long epoch, long delayMillis, UplinkMessage will) {
            Arming a = new Arming(sessionKey, epoch, delayMillis, will, new CompletableFuture<>());
            armed.add(a);
            return a.answer();
        }

        @Override
        public void start(WillPublisher publisher) {
        }
    }

    /** The fixture's memory store, offering the fleet's wills. */
    private final class SharedStore extends ForwardingSessionStore {
        SharedStore() {
            super(f.sessions);
        }

        @Override
        public Optional<DelayedWillStore> delayedWills() {
            return Optional.of(fleet);
        }
    }

    @BeforeEach
    void services() {
        f = ProtocolFixture.create(dir);
        services = new SessionServices(f.config, f.metrics, f.registry, f.auth, f.services.routes(), f.sink,
                new EventLog(100), SessionServices.newEpochSource(), f.services.admission(), new SharedStore());
    }

    @AfterEach
    void finish() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    /** A persistent MQTT 5.0 session with a will delayed 5 s. */
    private EmbeddedChannel session(long epoch) {
        EmbeddedChannel ch = new EmbeddedChannel(new DeviceSocketHandler(services));
        ch.attr(ConnectionContext.KEY).set(new ConnectionContext("tcp"));
        channels.add(ch);
        ConnectionContext c = ConnectionContext.of(ch);
        c.openSession("dev-1", ProtocolFixture.route("dev-1", epoch), WILL, TopicAcl.ALLOW_ALL, true);
        c.mqtt5(new Mqtt5Session(60, 5));
        f.registry.register("dev-1", ch);
        return ch;
    }

    @Test
    void armsTheWillInTheFleetStoreInsteadOfOnTheNode() {
        EmbeddedChannel ch = session(7);
        DeviceDisconnector.close(ch, DisconnectReason.KEEPALIVE_TIMEOUT);
        assertEquals(1, fleet.armed.size());
        Arming a = fleet.armed.get(0);
        assertEquals(ConnectionContext.of(ch).sessionKey(), a.sessionKey());
        assertEquals(7, a.epoch());
        assertEquals(5000, a.delayMillis());
        assertSame(WILL, a.will());
        a.answer().complete(DelayedWillStore.Armed.ARMED);
        assertEquals(0, services.wills().size(), "nothing waits on this node");
        assertEquals(0, f.sink.size());
    }

    @Test
    void leavesTheWillToTheFleetWhenThisNodeShutsDown() {
        DeviceDisconnector.close(session(8), DisconnectReason.SHUTDOWN);
        assertEquals(1, fleet.armed.size(), "the device may resume on another node");
        fleet.armed.get(0).answer().complete(DelayedWillStore.Armed.ARMED);
        assertEquals(0, f.sink.size());
    }

    @Test
    void publishesAtOnceWhenTheStoreSaysTheSessionEnded() {
        DeviceDisconnector.close(session(9), DisconnectReason.CONNECTION_LOST);
        fleet.armed.get(0).answer().complete(DelayedWillStore.Armed.ENDED);
        assertEquals(1, f.sink.size());
        assertEquals(WILL.topic(), f.sink.next().message().topic());
    }

    @Test
    void publishesNothingWhenTheSessionResumedElsewhereFirst() {
        DeviceDisconnector.close(session(10), DisconnectReason.CONNECTION_LOST);
        fleet.armed.get(0).answer().complete(DelayedWillStore.Armed.RESUMED);
        assertEquals(0, f.sink.size());
        assertEquals(0, services.wills().size());
    }

    @Test
    void keepsTheWillOnThisNodeWhenTheStoreFails() {
        DeviceDisconnector.close(session(11), DisconnectReason.CONNECTION_LOST);
        fleet.armed.get(0).answer().completeExceptionally(new IllegalStateException("redis down"));
        assertEquals(1, services.wills().size(), "waits here as without a shared store");
        assertEquals(0, f.sink.size());
        assertEquals(1.0, f.metrics.sessionStoreErrors("will"));
    }
}
