package io.mqttgw.bench.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConnectorTest {
    private final EventLoop loop = new DefaultEventLoop();
    private final FleetStats stats = new FleetStats();
    private final AtomicInteger started = new AtomicInteger();

    @AfterEach
    void stop() throws InterruptedException {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(30, TimeUnit.SECONDS);
    }

    @Test
    void startsTheDevicesALateTickOwesInsteadOfDroppingThem() throws Exception {
        Connector connector = connectorFor(1_000, 2_000);
        stallLoopThenTick(connector, 500);
        // At least 500 ms passed before the first tick: at 1,000/s that is 500 starts owed, which a bucket of one
        // tick (20) lost.
        assertTrue(started.get() >= 450, "started " + started.get());
    }

    @Test
    void countsTheStartsASecondOfBucketCannotHold() throws Exception {
        Connector connector = connectorFor(1_000, 5_000);
        stallLoopThenTick(connector, 1_600);
        assertTrue(stats.startsMissed.sum() >= 500, "missed " + stats.startsMissed.sum());
        assertEquals(1_000, started.get());
    }

    @Test
    void doesNotCountStartsTheInFlightCapHoldsBackAsMissed() throws Exception {
        Connector connector = new Connector(stats, 1_000, 10, d -> started.incrementAndGet());
        for (int i = 0; i < 5_000; i++) {
            connector.enqueue(device(i));
        }
        stats.connecting.set(10);
        loop.submit(() -> connector.startTicking(loop)).sync();
        // ticks on time every 5 ms for 1.6 s with the cap full: the bucket fills in a second, then overflows
        Thread.sleep(1_600);
        loop.submit(connector::stop).sync();
        assertEquals(0, started.get());
        assertEquals(0, stats.startsMissed.sum());
    }

    @Test
    void doesNotCountReconnectsOrAnEmptyQueueAsMissed() throws Exception {
        Connector connector = new Connector(stats, 1_000, 100_000, d -> started.incrementAndGet());
        Device reconnecting = device(0);
        reconnecting.everConnected = true;
        connector.enqueue(reconnecting);
        stallLoopThenTick(connector, 1_600);
        assertEquals(1, started.get());
        assertEquals(0, stats.startsMissed.sum());
    }

    private Connector connectorFor(int rate, int devices) {
        Connector connector = new Connector(stats, rate, 100_000, d -> started.incrementAndGet());
        for (int i = 0; i < devices; i++) {
            connector.enqueue(device(i));
        }
        return connector;
    }

    private Device device(int index) {
        return new Device(index, "d" + index, loop, null);
    }

    /** Holds the loop for {@code millis}, so the connector's first tick comes that late, and runs only that tick. */
    private void stallLoopThenTick(Connector connector, long millis) throws InterruptedException {
        CountDownLatch stalled = new CountDownLatch(1);
        loop.execute(() -> {
            stalled.countDown();
            sleep(millis);
        });
        assertTrue(stalled.await(30, TimeUnit.SECONDS));
        connector.startTicking(loop);
        CountDownLatch ticked = new CountDownLatch(1);
        // Runs right after the connector's first tick (both are due, the tick was scheduled first) and stops it, so
        // what the test counts is that one late tick.
        loop.schedule(() -> {
            connector.stop();
            ticked.countDown();
        }, 0, TimeUnit.MILLISECONDS);
        assertTrue(ticked.await(30, TimeUnit.SECONDS));
        // Starts are executed on the same loop; let them run.
        CountDownLatch drained = new CountDownLatch(1);
        loop.execute(drained::countDown);
        assertTrue(drained.await(30, TimeUnit.SECONDS));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
