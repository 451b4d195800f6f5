package io.mqttgw.routing.session;

import io.mqttgw.core.spi.LiveSessions;
import io.mqttgw.core.spi.LiveSessions.LiveSession;
import io.mqttgw.routing.redis.RedisConnector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the persistent sessions of this node's connected devices again when Redis lost its data (emptied, restarted
 * without persistence or from an older snapshot): a connected device's session is otherwise only written at its
 * CONNECT, so after a FLUSHALL it would be gone for good, and the device's next reconnect would start empty.
 *
 * <p>Every {@code interval} this node replaces its own watch value ({@link SessionKeys#watch}, "runId sequence") and
 * reads the value it replaced: anything but what it wrote last time means Redis no longer has what it was told (on its
 * first check, a missing value: Redis may have lost the sessions opened before it). Then it takes a snapshot of the
 * connected devices' sessions ({@link LiveSessions}, read on their event loops) and writes each one ({@link
 * SessionScripts#REWRITE}, ordered with that session's other calls), in chunks of {@link #CHUNK}; a failure leaves the
 * rewrite owed, tried again at the next check. What the node does not hold is not rewritten: the sessions of offline
 * devices, and the pending messages of connected ones (delivered or given up by the node, which holds them in flight),
 * are lost with the data.
 *
 * <p>One thread of its own, {@code redis-session-watch}; each call bounded by {@code timeout}.
 */
final class SessionRewrite {
    private static final Logger LOG = LoggerFactory.getLogger(SessionRewrite.class);
    /** Sessions written per round trip to Redis. */
    static final int CHUNK = 1000;

    private final RedissonClient client;
    private final RedisConnector connector;
    private final String watchKey;
    private final String runId;
    private final Duration interval;
    private final long timeoutMillis;
    private final Function<LiveSession, CompletableFuture<Long>> writer;
    private final ScheduledExecutorService thread;
    private LiveSessions node;
    private long sequence;
    /** What this node wrote last, null until its first check answered. */
    private String written;
    /** The sequence of {@link #written}, 0 before the first answer. */
    private long writtenSequence;
    private boolean owed;
    private volatile long rewrites;

    SessionRewrite(RedissonClient client, RedisConnector connector, String watchKey, String runId, Duration interval,
                   Duration timeout, Function<LiveSession, CompletableFuture<Long>> writer) {
        this.client = client;
        this.connector = connector;
        this.watchKey = watchKey;
        this.runId = runId;
        this.interval = interval;
        this.timeoutMillis = timeout.toMillis() * 2 + 1000;
        this.writer = writer;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "redis-session-watch");
            t.setDaemon(true);
            return t;
        });
    }

    void start(LiveSessions live) {
        this.node = live;
        thread.scheduleWithFixedDelay(this::check, 0, interval.toNanos(), TimeUnit.NANOSECONDS);
    }

    void stop() {
        thread.shutdownNow();
    }

    /** Sessions written again since start. */
    long rewrites() {
        return rewrites;
    }

    private void check() {
        if (!connector.connected()) {
            return;
        }
        try {
            String value = runId + " " + ++sequence;
            String old = client.getScript(StringCodec.INSTANCE).<String>evalAsync(watchKey, RScript.Mode.READ_WRITE,
                    SessionScripts.WATCH, RScript.ReturnType.VALUE, List.of(watchKey), value)
                    .toCompletableFuture().get(timeoutMillis, TimeUnit.MILLISECONDS);
            if (written == null ? old == null : !written.equals(old) && !unansweredWriteOfOurs(old)) {
                // on the first answer a missing key is also what a fresh node sees; but sessions opened before that
                // answer (devices connect as soon as Redis does) would be lost unnoticed if Redis lost them meanwhile
                if (written != null) {
                    LOG.warn("session store: Redis lost data (watch key {} held {} instead of {}); writing the "
                            + "persistent sessions of this node's connected devices again", watchKey, old, written);
                }
                owed = true;
            }
            written = value;
            writtenSequence = sequence;
            if (owed) {
                rewriteAll();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // Redis failing: the next check tells whether it came back with its data
            LOG.debug("session watch failed: {}", e.toString());
        }
    }

    /**
     * A write whose answer never came (Redis answered after our timeout) may still have landed; its value is then
     * what the next check reads back, and that is no loss. A value of ours older than the last answered one, or
     * another run's, still is.
     */
    private boolean unansweredWriteOfOurs(String old) {
        String prefix = runId + " ";
        if (old == null || !old.startsWith(prefix)) {
            return false;
        }
        try {
            long seq = Long.parseLong(old.substring(prefix.length()));
            return seq > writtenSequence && seq < sequence;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private void rewriteAll() throws Exception {
        List<LiveSession> live = node.snapshot().toCompletableFuture().get(timeoutMillis, TimeUnit.MILLISECONDS);
        long done = 0;
        for (int i = 0; i < live.size(); i += CHUNK) {
            List<CompletableFuture<Long>> chunk = new ArrayList<>(CHUNK);
            for (LiveSession s : live.subList(i, Math.min(live.size(), i + CHUNK))) {
                chunk.add(writer.apply(s));
            }
            CompletableFuture.allOf(chunk.toArray(CompletableFuture[]::new))
                    .get(timeoutMillis, TimeUnit.MILLISECONDS);
            done += chunk.stream().filter(f -> f.join() == 1L).count();
        }
        owed = false;
        rewrites += done;
        if (live.isEmpty()) {
            return;
        }
        LOG.info("session store: wrote {} persistent sessions of connected devices again ({} connected with one)",
                done, live.size());
    }
}
