package io.mqttgw.routing.session;

import io.mqttgw.core.spi.DelayedWillStore;
import io.mqttgw.core.spi.UplinkMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.redisson.api.RScript;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MQTT 5.0 wills waiting for their delay in Redis, published once by the fleet ({@link SessionKeys}: a will key in its
 * session's slot, due indexes in {@link SessionKeys#WILL_GROUPS} slots of their own). Arming writes the index entry,
 * then the will, fenced by the session's epoch; the session open of a resuming device deletes the will in the same
 * script, wherever it connects. Every node polls the indexes on a thread of its own, at most a batch of due
 * entries a tick ({@link #BATCH} unless {@link #polling} set another), and claims each will with a script that
 * deletes and returns it: only the node that got it publishes, so a will is published at most once, also when its
 * arming node died. A clean start's session open takes
 * the will of the session it ends in the same script ({@link #sessionEnded}). A claimer that dies between the
 * claim and the sink loses that will. Calls go through the session store's {@code eval}, so they are counted with its
 * calls and the store's close waits for them. Thread-safe.
 */
final class RedisDelayedWills implements DelayedWillStore {
    private static final Logger LOG = LoggerFactory.getLogger(RedisDelayedWills.class);
    /** Due entries one poll claims at most, over all indexes, by default; the rest wait for the next tick. */
    static final int BATCH = 256;
    /** A will key outlives its due time by this much, so one whose index entry was lost does not stay for ever. */
    static final long KEEP_AFTER_DUE_MILLIS = TimeUnit.DAYS.toMillis(1);

    /** How the wills reach Redis: the session store's script calls. */
    interface Calls {
        <T> CompletionStage<T> eval(String key, String script, RScript.ReturnType type, List<Object> keys,
                                    Object... args);
    }

    private final Calls calls;
    private final SessionKeys keys;
    private long tickMillis;
    private volatile int batch = BATCH;
    private final AtomicLong claimed = new AtomicLong();
    private final AtomicLong failedPolls = new AtomicLong();
    private volatile long lastFailureLoggedNanos;
    private final BooleanSupplier connected;
    private ScheduledExecutorService poller;
    private volatile WillPublisher publisher;
    private int nextGroup;

    /** @param connected whether Redis has answered once: until then polls are skipped, not refused and counted */
    RedisDelayedWills(Calls calls, BooleanSupplier connected, SessionKeys keys, long tickMillis) {
        this.calls = calls;
        this.connected = connected;
        this.keys = keys;
        this.tickMillis = tickMillis;
    }

    private static byte[] ascii(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public CompletionStage<Armed> arm(String sessionKey, long epoch, long delayMillis, UplinkMessage will) {
        String index = keys.willsDue(SessionKeys.willGroup(sessionKey));
        String key = keys.will(sessionKey);
        byte[] member = (epoch + ":" + sessionKey).getBytes(StandardCharsets.UTF_8);
        long due = System.currentTimeMillis() + delayMillis;
        byte[] encoded = WillCodec.encode(will);
        return calls.<Long>eval(index, WillScripts.INDEX, RScript.ReturnType.LONG, List.of(index), ascii(due),
                        member)
                .thenCompose(ignored -> calls.<Long>eval(key, WillScripts.ARM, RScript.ReturnType.LONG,
                        List.of(key, keys.session(sessionKey)), ascii(epoch), encoded,
                        ascii(delayMillis + KEEP_AFTER_DUE_MILLIS)))
                .thenApply(answer -> answer == WillScripts.ARM_ARMED ? Armed.ARMED
                        : answer == WillScripts.ARM_RESUMED ? Armed.RESUMED : Armed.ENDED);
    }

    /** Takes the will armed by the connection of {@code epoch} (empty: any): only one caller gets it. */
    CompletionStage<byte[]> claim(String sessionKey, String epoch) {
        String key = keys.will(sessionKey);
        return calls.eval(key, WillScripts.CLAIM, RScript.ReturnType.VALUE, List.of(key),
                epoch.getBytes(StandardCharsets.US_ASCII));
    }

    /** A clean start's session open took the will of the session it ended: published now, by this node. */
    void sessionEnded(byte[] will) {
        WillPublisher p = publisher;
        if (p == null) {
            LOG.warn("delayed wills: a will taken by a clean start was dropped, the store has no publisher yet");
            return;
        }
        claimed.incrementAndGet();
        p.publish(WillCodec.decode(will));
    }

    /**
     * How often to poll and how many due wills one poll claims at most; before {@link #start}. A longer interval
     * publishes wills later; a smaller batch spreads a burst of due wills over more ticks.
     */
    synchronized void polling(long tickMillis, int batch) {
        if (poller != null) {
            throw new IllegalStateException("delayed wills already polled");
        }
        this.tickMillis = tickMillis;
        this.batch = batch;
    }

    @Override
    public synchronized void start(WillPublisher publisher) {
        if (poller != null) {
            return;
        }
        this.publisher = publisher;
        poller = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "mqttgw-wills-poller");
            t.setDaemon(true);
            return t;
        });
        poller.scheduleWithFixedDelay(() -> pollSafely(publisher), tickMillis, tickMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * Stops polling; wills still armed stay in Redis for the other nodes. A tick under way ends (not interrupted: a
     * will it claimed is still published), its calls counted among the store's unfinished ones, which close waits for.
     */
    synchronized void stop() {
        if (poller != null) {
            poller.shutdown();
        }
    }

    /** Wills this node claimed and handed to its publisher. */
    long claimedCount() {
        return claimed.get();
    }

    /** Polls that failed (Redis down, say); the entries wait for a later poll. */
    long failedPollCount() {
        return failedPolls.get();
    }

    private void pollSafely(WillPublisher publisher) {
        try {
            poll(publisher);
        } catch (Exception e) {
            failedPolls.incrementAndGet();
            long now = System.nanoTime();
            if (lastFailureLoggedNanos == 0 || now - lastFailureLoggedNanos >= TimeUnit.MINUTES.toNanos(1)) {
                lastFailureLoggedNanos = now;
                LOG.warn("delayed wills: a poll of the due wills failed ({}); {} failed so far, retried every tick",
                        e.toString(), failedPolls.get());
            }
        }
    }

    /**
     * One tick on the poller thread (which may wait, unlike an event loop): claims what is due, index by index from a
     * rotating start so that a full batch does not always starve the same indexes.
     */
    void poll(WillPublisher publisher) throws Exception {
        if (!connected.getAsBoolean()) {
            return;
        }
        long now = System.currentTimeMillis();
        int budget = batch;
        int start = nextGroup;
        nextGroup = (nextGroup + 1) % SessionKeys.WILL_GROUPS;
        for (int i = 0; i < SessionKeys.WILL_GROUPS && budget > 0; i++) {
            String index = keys.willsDue((start + i) % SessionKeys.WILL_GROUPS);
            List<Object> due = await(calls.<List<Object>>eval(index, WillScripts.DUE, RScript.ReturnType.LIST,
                    List.of(index), ascii(now), ascii(budget)));
            if (due == null || due.isEmpty()) {
                continue;
            }
            budget -= due.size();
            List<Object> done = new ArrayList<>(due.size());
            for (Object entry : due) {
                byte[] member = (byte[]) entry;
                String text = new String(member, StandardCharsets.UTF_8);
                int colon = text.indexOf(':');
                if (colon > 0) {
                    byte[] will = await(claim(text.substring(colon + 1), text.substring(0, colon)));
                    if (will != null) {
                        claimed.incrementAndGet();
                        publisher.publish(WillCodec.decode(will));
                    }
                }
                done.add(member);
            }
            await(calls.<Long>eval(index, WillScripts.FORGET, RScript.ReturnType.LONG, List.of(index),
                    done.toArray()));
        }
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
