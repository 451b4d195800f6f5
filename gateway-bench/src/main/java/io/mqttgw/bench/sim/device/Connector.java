package io.mqttgw.bench.sim.device;

import io.netty.channel.EventLoop;
import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Admission of connection attempts: a token bucket at the ramp rate for first connections, and a cap on attempts
 * between TCP connect and CONNACK for all of them (reconnects skip the bucket, as real devices do, but not the
 * cap, which protects the client's own CPU). Devices are queued from any thread; one task on {@code loop} every
 * 5 ms starts at most a bounded number of them, each on its own event loop through {@code start}.
 *
 * <p>The bucket holds a second of starts. A fleet's arrivals do not wait for the client: when a tick comes late
 * because the client is short of CPU (on a machine it shares with the server, the server's start-up takes that
 * CPU), the devices whose time has come start at once. With a bucket of one tick's worth the late time was lost
 * for good, so a ramp measured the client's CPU rather than the server's (docs/benchmarks/history.md). A tick more than
 * a
 * second late still loses the starts beyond the bucket; those are counted in {@link FleetStats#startsMissed}.
 */
final class Connector {
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final int MAX_STARTS_PER_TICK = 20_000;

    private final Queue<Device> queue = PlatformDependent.newMpscQueue();
    private final FleetStats stats;
    private final double ratePerSecond;
    private final int maxInFlight;
    private final Consumer<Device> start;
    private ScheduledFuture<?> task;
    private double tokens;
    private long lastTick;
    private double missed;

    Connector(FleetStats stats, int ratePerSecond, int maxInFlight, Consumer<Device> start) {
        this.stats = stats;
        this.ratePerSecond = ratePerSecond;
        this.maxInFlight = maxInFlight;
        this.start = start;
    }

    void startTicking(EventLoop loop) {
        lastTick = System.nanoTime();
        task = loop.scheduleAtFixedRate(this::tick, 0, TICK_NANOS, TimeUnit.NANOSECONDS);
    }

    void stop() {
        if (task != null) {
            task.cancel(false);
        }
        queue.clear();
    }

    void enqueue(Device device) {
        queue.add(device);
    }

    private void tick() {
        long now = System.nanoTime();
        double burst = Math.max(1.0, ratePerSecond);
        double owed = ratePerSecond * (now - lastTick) / 1e9;
        lastTick = now;
        tokens = Math.min(burst, tokens + owed);
        Device head = queue.peek();
        // Missed: what a gap between two ticks owed beyond the bucket, i.e. the client's own lateness. While the
        // in-flight cap holds starts back the bucket stays full and overflows every tick, but that is the server's
        // pace (the cap's purpose, shown by the in-flight gauge), not a start the client failed to make.
        if (owed > burst && head != null && !head.everConnected) {
            long before = (long) missed;
            missed += owed - burst;
            stats.startsMissed.add((long) missed - before);
        }
        for (int started = 0; started < MAX_STARTS_PER_TICK && stats.connecting.get() < maxInFlight; started++) {
            Device next = queue.peek();
            if (next == null) {
                return;
            }
            if (!next.everConnected) {
                if (tokens < 1) {
                    return;
                }
                tokens -= 1;
            }
            queue.poll();
            stats.connecting.incrementAndGet();
            next.loop.execute(() -> start.accept(next));
        }
    }
}
