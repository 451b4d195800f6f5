package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.admin.OperatorApi;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.ProtocolCapabilities;
import io.mqttgw.core.registry.ChannelRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The paced close of a draining node, on a clock the test moves. */
class GracefulDrainTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private final ChannelRegistry registry = new ChannelRegistry(4);
    /** Closed devices seen at each sleep of the draining thread. */
    private final List<Integer> closedAtEachSleep = new ArrayList<>();
    private long now;

    @AfterEach
    void release() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    private void devices(int n) {
        for (int i = 0; i < n; i++) {
            EmbeddedChannel ch = new EmbeddedChannel();
            ConnectionContext c = new ConnectionContext("tcp");
            c.capabilities(ProtocolCapabilities.MQTT_3_1_1);
            ch.attr(ConnectionContext.KEY).set(c);
            registry.register("dev-" + i, ch);
            channels.add(ch);
        }
    }

    /** Runs the closes handed to each device's loop, and counts the devices closed so far. */
    private int closed() {
        int n = 0;
        for (EmbeddedChannel ch : channels) {
            ch.runPendingTasks();
            n += ch.isOpen() ? 0 : 1;
        }
        return n;
    }

    private GracefulDrain drain(int ratePerSecond, Duration timeout) {
        return new GracefulDrain("n1", new GatewayConfig.Shutdown(ratePerSecond, null, Duration.ZERO, timeout),
                registry, null, () -> now, nanos -> {
                    closedAtEachSleep.add(closed());
                    now += nanos;
                });
    }

    @Test
    void closesDevicesInTenMillisecondSlicesAtTheDrainRate() {
        devices(10);
        drain(200, Duration.ofMinutes(1)).closeSessions(now + Duration.ofMinutes(1).toNanos());
        assertEquals(List.of(2, 4, 6, 8), closedAtEachSleep, "200/s: 2 devices every 10 ms");
        assertEquals(40 * MS, now, "the last slice needs no sleep after it");
        assertEquals(10, closed());
    }

    @Test
    void closesTheRestAtOncePastTheDeadline() {
        devices(10);
        drain(100, Duration.ofMinutes(1)).closeSessions(now + 15 * MS);
        assertEquals(List.of(1, 2), closedAtEachSleep, "100/s: one device every 10 ms until the deadline");
        assertEquals(10, closed(), "then every device still open");
    }

    @Test
    void keepsARateBelowOneHundredPerSecond() {
        devices(3);
        drain(10, Duration.ofMinutes(1)).closeSessions(now + Duration.ofMinutes(1).toNanos());
        assertEquals(List.of(1, 2), closedAtEachSleep);
        assertEquals(200 * MS, now, "10/s: the third device 200 ms after the first");
        assertEquals(3, closed());
    }

    @Test
    void keepsARateThatIsNoMultipleOfOneHundred() {
        devices(6);
        drain(250, Duration.ofMinutes(1)).closeSessions(now + Duration.ofMinutes(1).toNanos());
        assertEquals(List.of(2, 4), closedAtEachSleep);
        assertEquals(16 * MS, now, "250/s: two devices every 8 ms");
        assertEquals(6, closed());
    }

    @Test
    void turnsReadinessOffAndDrainsOnceWhoeverAsksFirst() throws Exception {
        devices(4);
        GracefulDrain drain = drain(100, Duration.ofMinutes(1));
        assertFalse(drain.leaving());
        CountDownLatch exited = new CountDownLatch(1);
        OperatorApi.DrainReport first = drain.start("ops", true, exited::countDown);
        assertTrue(drain.leaving(), "/health/ready answers 503 from the first request on");
        assertFalse(first.alreadyDraining());
        assertEquals(4, first.devices());
        assertEquals(100, first.drainRatePerSecond());
        assertTrue(exited.await(30, TimeUnit.SECONDS), "the node goes on to exit once drained");
        OperatorApi.DrainReport second = drain.start("ops", false, () -> { });
        assertTrue(second.alreadyDraining());
        assertTrue(second.exitWhenDrained(), "the first request decided");
        assertFalse(drain.run(), "SIGTERM waits for the drain already done");
        assertEquals(List.of(1, 2, 3), closedAtEachSleep.subList(0, 3), "SIGTERM after it drains nothing twice");
        assertEquals(3, closedAtEachSleep.size());
    }
}
