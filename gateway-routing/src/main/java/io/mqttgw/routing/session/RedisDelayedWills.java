package io.mqttgw.routing.session;

import io.mqttgw.core.spi.DelayedWillStore;
import io.mqttgw.core.spi.UplinkMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.api.RScript;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MQTT 5.0 wills waiting for their delay in Redis, published once by the fleet ({@link SessionKeys}: a will key in its
 * session's slot, due indexes in {@link SessionKeys#WILL_GROUPS} slots of their own). Arming writes the index entry,
 * then the will, fenced by the session's epoch; the session open of a resuming device deletes the will in the same
 * script, wherever it connects. Every node polls the indexes on a thread of its own, at most {@link #BATCH} due
 * entries a tick, and claims each will with a script that deletes and returns it: only the node that got it
 * publishes, so a will is published at most once, also when its arming node died. A claimer that dies between the
 * claim and the sink loses that will. Calls go through the session store's {@code eval}, so they are counted with its
 * calls and the store's close waits for them. Thread-safe.
 */
final class RedisDelayedWills implements DelayedWillStore {
    private static final Logger LOG = LoggerFactory.getLogger(RedisDelayedWills.class);
    /** Due entries one poll claims at most, over all indexes; the rest wait for the next tick. */
    static final int BATCH = 256;
    /** A will key outlives its due time by this much, so one whose index entry was lost does not stay for ever. */
    static final long KEEP_AFTER_DUE_MILLIS = TimeUnit.DAYS.toMillis(1);
    private static final byte[] ANY_EPOCH = new byte[0];

    /** How the wills reach Redis: the session store's script calls. */
    interface Calls {
        <T> CompletionStage<T> eval(String key, String script, RScript.ReturnType type, List<Object> keys,
                                    Object... args);
    }

    private final Calls calls;
    private final SessionKeys keys;
    private final long tickMillis;
    private final AtomicLong claimed = new AtomicLong();
    private final AtomicLong failedPolls = new AtomicLong();
    private volatile long lastFailureLoggedNanos;
    private ScheduledExecutorService poller;
    private int nextGroup;

    RedisDelayedWills(Calls calls, SessionKeys keys, long tickMillis) {
        this.calls = calls;
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

    @Override
    public CompletionStage<Optional<UplinkMessage>> claim(String sessionKey) {
        String key = keys.will(sessionKey);
        return calls.<byte[]>eval(key, WillScripts.CLAIM, RScript.ReturnType.VALUE, List.of(key), ANY_EPOCH)
                .thenApply(bytes -> Optional.ofNullable(bytes).map(WillCodec::decode));
    }

    @Override
    public synchronized void start(WillPublisher publisher) {
        if (poller != null) {
            return;
        }
        poller = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "mqttgw-wills-poller");
            t.setDaemon(true);
            return t;
        });
        poller.scheduleWithFixedDelay(() -> pollSafely(publisher), tickMillis, tickMillis, TimeUnit.MILLISECONDS);
    }

    /** Stops polling; wills still armed stay in Redis for the other nodes. */
    synchronized void stop() {
        if (poller != null) {
            poller.shutdownNow();
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
        long now = System.currentTimeMillis();
        int budget = BATCH;
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
                    String sessionKey = text.substring(colon + 1);
                    String key = keys.will(sessionKey);
                    byte[] will = await(calls.<byte[]>eval(key, WillScripts.CLAIM, RScript.ReturnType.VALUE,
                            List.of(key), text.substring(0, colon).getBytes(StandardCharsets.US_ASCII)));
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
