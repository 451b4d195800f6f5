package io.mqttgw.routing.session;

import static io.mqttgw.routing.session.SessionCalls.ascii;

import io.mqttgw.core.spi.DownlinkMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;

/**
 * Retained messages in one Redis hash shared by the fleet. A wildcard filter is matched inside Redis ({@link
 * SessionScripts#RETAINED}), in bounded steps, so a SUBSCRIBE reads only what matches; one scan serves the
 * SUBSCRIBEs to the same filter for a second, and a fleet that retains nothing pays no Redis call per SUBSCRIBE.
 *
 * <p>Threading: called from any thread (an event loop) and never blocks; the retains of one topic are chained so
 * they run in Redis in the order made. Scan steps after the first run on the Redis client's threads. Thread-safe.
 */
final class RetainedMessages {
    private static final byte[] EMPTY = new byte[0];
    /** How long one wildcard scan's answer serves the same filter; retains through this node clear it at once. */
    static final long SCAN_REUSE_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Retained-hash entries one script call scans: each call's work in Redis is bounded, whatever the hash's size. */
    static final int RETAINED_SCAN_COUNT = 1000;
    private static final int MAX_RECENT_SCANS = 10_000;
    private static final CompletionStage<List<DownlinkMessage>> NONE_RETAINED = CompletableFuture.completedFuture(
            List.of());

    /** A scan of the retained hash for one wildcard filter, shared by the SUBSCRIBEs that come while it is recent. */
    private record Scan(CompletableFuture<List<DownlinkMessage>> result, long startedNanos) {
    }

    private final RedissonClient client;
    private final SessionCalls calls;
    private final SessionKeys keys;
    private final byte[] maxRetained;
    private final int retainedLimit;
    /** HLEN of the retained hash as last read (-1: not yet), and when that read started. */
    private volatile long retainedCount = -1;
    private final AtomicLong retainedCountCheckedNanos = new AtomicLong(System.nanoTime() - SCAN_REUSE_NANOS);
    /** Wildcard scans of the retained hash started in the last {@link #SCAN_REUSE_NANOS}, by filter. */
    private final ConcurrentHashMap<String, Scan> recentScans = new ConcurrentHashMap<>();
    /** The last retain chained per topic. */
    private final ConcurrentHashMap<String, CompletableFuture<Void>> retainChains = new ConcurrentHashMap<>();

    /** @param maxRetained {@code session.max-retained}, also the most retained messages one SUBSCRIBE filter gets */
    RetainedMessages(RedissonClient client, SessionCalls calls, SessionKeys keys, int maxRetained) {
        this.client = client;
        this.calls = calls;
        this.keys = keys;
        this.maxRetained = ascii(maxRetained);
        this.retainedLimit = maxRetained;
    }

    CompletionStage<Void> retain(DownlinkMessage message) {
        byte[] encoded = message.payload().length == 0 ? EMPTY : MessageCodec.encode(message);
        byte[] topic = message.topic().getBytes(StandardCharsets.UTF_8);
        return SessionCalls.inOrder(retainChains, message.topic(), () -> calls.<Long>eval(keys.retained(),
                SessionScripts.RETAIN, RScript.ReturnType.LONG, List.of(keys.retained()), topic, encoded,
                maxRetained))
                .thenApply(stored -> {
                    // what this node changed, its own subscribers see at once
                    recentScans.clear();
                    retainedCount = Math.max(retainedCount, encoded.length == 0 ? 0 : 1);
                    if (stored == 0) {
                        throw new IllegalStateException("session.max-retained (" + retainedLimit
                                + ") retained messages are stored already");
                    }
                    return null;
                });
    }

    CompletionStage<List<DownlinkMessage>> retained(String topicFilter) {
        if (retainedHashEmpty()) {
            // a fleet that uses no retained messages pays no Redis call per SUBSCRIBE
            return NONE_RETAINED;
        }
        if (topicFilter.indexOf('+') < 0 && topicFilter.indexOf('#') < 0) {
            return lookUpRetained(topicFilter);
        }
        // a reconnect storm makes every device SUBSCRIBE to the same few wildcard filters at once: one scan in Redis
        // serves all of them for SCAN_REUSE_NANOS, instead of one scan of the retained hash per device
        long now = System.nanoTime();
        Scan recent = recentScans.get(topicFilter);
        if (recent != null && now - recent.startedNanos() < SCAN_REUSE_NANOS
                && !recent.result().isCompletedExceptionally()) {
            return recent.result();
        }
        if (recentScans.size() >= MAX_RECENT_SCANS) {
            recentScans.clear();
        }
        CompletableFuture<List<DownlinkMessage>> scan = lookUpRetained(topicFilter).toCompletableFuture();
        recentScans.put(topicFilter, new Scan(scan, now));
        return scan;
    }

    /**
     * Whether the retained hash was empty when last counted. The count is read again (without waiting for it) at
     * most every {@link #SCAN_REUSE_NANOS}; a retain through this node marks it non-empty at once, so what another
     * node stores is seen here within that time, as with the shared wildcard scans.
     */
    private boolean retainedHashEmpty() {
        long checked = retainedCountCheckedNanos.get();
        long now = System.nanoTime();
        if (now - checked >= SCAN_REUSE_NANOS && calls.connected()
                && retainedCountCheckedNanos.compareAndSet(checked, now)) {
            client.getMap(keys.retained(), ByteArrayCodec.INSTANCE).sizeAsync().whenComplete((n, error) -> {
                if (error == null) {
                    retainedCount = n;
                }
            });
        }
        return retainedCount == 0;
    }

    private CompletionStage<List<DownlinkMessage>> lookUpRetained(String topicFilter) {
        return scanRetained(topicFilter.getBytes(StandardCharsets.UTF_8),
                glob(topicFilter).getBytes(StandardCharsets.UTF_8), "0", new ArrayList<>());
    }

    /**
     * One bounded step of the retained scan ({@link #RETAINED_SCAN_COUNT} hash entries per script call), then the
     * next from the cursor it answered, until the cursor is back at 0 or the limit is reached. Runs on the Redis
     * client's threads; the calling event loop only starts the first step.
     */
    private CompletionStage<List<DownlinkMessage>> scanRetained(byte[] filter, byte[] glob, String cursor,
                                                              List<DownlinkMessage> found) {
        CompletionStage<List<Object>> reply = calls.eval(keys.retained(), SessionScripts.RETAINED,
                RScript.ReturnType.LIST, List.of(keys.retained()), filter, glob,
                ascii(retainedLimit - found.size()), ascii(cursor), ascii(RETAINED_SCAN_COUNT));
        return reply.thenCompose(values -> {
            String next = "0";
            if (values != null && !values.isEmpty()) {
                Object c = values.get(0);
                next = c instanceof byte[] b ? new String(b, StandardCharsets.US_ASCII) : String.valueOf(c);
                for (int i = 1; i < values.size() && found.size() < retainedLimit; i++) {
                    found.add(MessageCodec.decode((byte[]) values.get(i)));
                }
            }
            if ("0".equals(next) || found.size() >= retainedLimit) {
                return CompletableFuture.completedFuture(List.copyOf(found));
            }
            return scanRetained(filter, glob, next, found);
        });
    }

    /**
     * The Redis glob that every topic matching the MQTT filter also matches: literal levels escaped, {@code +} as
     * {@code *}, a trailing {@code /#} (or {@code #}) as {@code *}. Wider than the filter ({@code *} crosses levels);
     * the script then matches exactly.
     */
    static String glob(String filter) {
        String f = filter;
        boolean multi = f.equals("#") || f.endsWith("/#");
        if (multi) {
            f = f.substring(0, Math.max(0, f.length() - 2));
        }
        StringBuilder g = new StringBuilder(f.length() + 2);
        String[] levels = f.isEmpty() ? new String[0] : f.split("/", -1);
        for (int i = 0; i < levels.length; i++) {
            if (i > 0) {
                g.append('/');
            }
            if (levels[i].equals("+")) {
                g.append('*');
            } else {
                for (char c : levels[i].toCharArray()) {
                    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                        g.append('\\');
                    }
                    g.append(c);
                }
            }
        }
        if (multi) {
            g.append('*');
        }
        return g.toString();
    }
}
