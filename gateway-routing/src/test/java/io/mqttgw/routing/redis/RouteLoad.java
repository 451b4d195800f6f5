package io.mqttgw.routing.redis;

import io.mqttgw.core.spi.Route;
import io.mqttgw.routing.testkit.TestRouteStores.FakeNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A steady load on a route store, as a node's reconnecting devices make it: every 20 ms each device connects again
 * (a write with a new epoch) and its previous connection's route is deleted. Measures how long the operations of
 * the {@code watched} devices took, from the call to the completion of their stage.
 */
final class RouteLoad implements AutoCloseable {
    private final Map<String, Route> last = new ConcurrentHashMap<>();
    /** Per device, when the latest of its writes that Redis acknowledged was sent (System.nanoTime). */
    private final Map<String, Long> acknowledgedSent = new ConcurrentHashMap<>();
    private final List<CompletableFuture<Void>> all = new CopyOnWriteArrayList<>();
    private final AtomicLong maxNanos = new AtomicLong();
    private final AtomicLong ops = new AtomicLong();
    private final AtomicLong slow = new AtomicLong();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread writer;

    RouteLoad(RedisRouteStore store, FakeNode events, String node, List<String> devices, Set<String> watched,
              AtomicLong epochs) {
        writer = new Thread(() -> {
            while (!stop.get()) {
                for (String id : devices) {
                    Route r = new Route(id, node, epochs.incrementAndGet(), System.currentTimeMillis(),
                            "127.0.0.1:40000");
                    Route previous = last.put(id, r);
                    events.live.put(id, r);
                    long sent = System.nanoTime();
                    CompletableFuture<Void> put = store.put(r).toCompletableFuture();
                    CompletableFuture<Void> delete = previous == null ? CompletableFuture.completedFuture(null)
                            : store.remove(previous).toCompletableFuture();
                    all.add(put);
                    all.add(delete);
                    put.thenRun(() -> acknowledgedSent.merge(id, sent, Math::max));
                    if (watched.contains(id)) {
                        ops.addAndGet(previous == null ? 1 : 2);
                        CompletableFuture.allOf(put, delete).whenComplete((v, e) -> {
                            long took = System.nanoTime() - sent;
                            maxNanos.accumulateAndGet(took, Math::max);
                            if (took > TimeUnit.MILLISECONDS.toNanos(500)) {
                                slow.incrementAndGet();
                            }
                        });
                    }
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "route-load");
        writer.setDaemon(true);
        writer.start();
    }

    /** Starts measuring afresh; answers the slowest watched operation until now, in ms. */
    long reset() {
        long before = maxNanos.getAndSet(0);
        ops.set(0);
        slow.set(0);
        return TimeUnit.NANOSECONDS.toMillis(before);
    }

    long maxMillis() {
        return TimeUnit.NANOSECONDS.toMillis(maxNanos.get());
    }

    long ops() {
        return ops.get();
    }

    /** Watched operations that took more than 500 ms. */
    long slow() {
        return slow.get();
    }

    /**
     * Whether a write of any of {@code devices} sent at {@code nanos} (System.nanoTime) or later was acknowledged: the
     * writes of a shard whose devices these are flow again.
     */
    boolean anyWrittenSince(List<String> devices, long nanos) {
        return devices.stream().anyMatch(id -> {
            Long sent = acknowledgedSent.get(id);
            return sent != null && sent - nanos >= 0;
        });
    }

    /** The last route written per device. */
    Map<String, Route> last() {
        return last;
    }

    /** Every operation's stage, to wait for after {@link #close()}. */
    CompletableFuture<Void> allDone() {
        return CompletableFuture.allOf(new ArrayList<>(all).toArray(CompletableFuture[]::new));
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        writer.join(10_000);
    }
}
