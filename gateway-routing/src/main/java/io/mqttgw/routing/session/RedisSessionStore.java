package io.mqttgw.routing.session;

import io.mqttgw.core.spi.DelayedWillStore;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.HealthStatus;
import io.mqttgw.core.spi.LiveSessions;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.spi.Subscription;
import io.mqttgw.routing.redis.RedisConnector;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.ByteArrayCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Persistent sessions and retained messages in Redis, shared by every node: a device finds its session on whichever
 * node it reconnects to, and a business service can queue for an offline device ({@link #append}) without a
 * gateway. Each operation is one Lua script on one session's keys ({@link SessionKeys}), so it is atomic and works
 * in Redis Cluster. Retained messages are matched against a wildcard filter inside Redis ({@link
 * SessionScripts#RETAINED}),
 * so a SUBSCRIBE reads only what matches.
 *
 * <p>Calls return at once; stages complete on the Redis client's threads. The calls of one client id (and the
 * retains of one topic) are chained, each sent once the previous one answered, so they run in Redis in the order
 * made: Redisson's connection pool would otherwise let two of them overtake each other (e.g. two commands queued for
 * an offline device, or a save of subscriptions and the expiry that follows). Thread-safe.
 *
 * <p>Until Redis has answered once ({@link RedisConnector}), every call fails at once with
 * {@link SessionStoreNotConnectedException} and is counted ({@link #refusedCount}): the lazily connecting client would
 * otherwise connect on the caller's thread, an event loop. The gateway then serves a CONNECT as a new session and
 * does not queue downlink for offline devices.
 */
public final class RedisSessionStore implements SessionStore {
    private static final Logger LOG = LoggerFactory.getLogger(RedisSessionStore.class);
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
    private static final byte[] EMPTY = new byte[0];
    /** How long one wildcard scan's answer serves the same filter; retains through this node clear it at once. */
    static final long SCAN_REUSE_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);
    /** Retained-hash entries one script call scans: each call's work in Redis is bounded, whatever the hash's size. */
    static final int RETAINED_SCAN_COUNT = 1000;
    private static final int MAX_RECENT_SCANS = 10_000;
    /** How often the node looks for delayed wills that fell due: the most a will is published late. */
    static final long WILL_POLL_MILLIS = 1000;
    private static final CompletionStage<List<DownlinkMessage>> NONE_RETAINED = CompletableFuture.completedFuture(
            List.of());

    /** A scan of the retained hash for one wildcard filter, shared by the SUBSCRIBEs that come while it is recent. */
    private record Scan(CompletableFuture<List<DownlinkMessage>> result, long startedNanos) {
    }

    private final RedissonClient client;
    private final RScript script;
    private final SessionKeys keys;
    private final long expiryMillis;
    private final byte[] maxPending;
    private final byte[] maxRetained;
    private final int retainedLimit;
    /** The last operation chained per client id ({@link #inOrder}); removed when it completes. */
    private final ConcurrentHashMap<String, CompletableFuture<Void>> sessionChains = new ConcurrentHashMap<>();
    /** HLEN of the retained hash as last read (-1: not yet), and when that read started. */
    private volatile long retainedCount = -1;
    private final AtomicLong retainedCountCheckedNanos = new AtomicLong(System.nanoTime() - SCAN_REUSE_NANOS);
    /** Wildcard scans of the retained hash started in the last {@link #SCAN_REUSE_NANOS}, by filter. */
    private final ConcurrentHashMap<String, Scan> recentScans = new ConcurrentHashMap<>();
    /** The last retain chained per topic. */
    private final ConcurrentHashMap<String, CompletableFuture<Void>> retainChains = new ConcurrentHashMap<>();
    private final AtomicLong lastSuccessNanos = new AtomicLong(System.nanoTime());
    private final AtomicLong lastFailureNanos = new AtomicLong();
    private volatile String lastFailure = "";
    private final boolean ownsClient;
    private final RedisConnector connector;
    private final AtomicLong refused = new AtomicLong();
    /** Key of the sorted set of sessions whose device left this node; null: no bound. */
    private final String sessionsLeftKey;
    private final byte[] maxSessions;
    private final AtomicLong evicted = new AtomicLong();
    private volatile long sessionsLeft;
    /** Calls made and not completed yet, chained ones included: close waits for them. */
    private final AtomicInteger unfinished = new AtomicInteger();
    /**
     * Sessions whose expiry could not be written when their device left (Redis failing over, say): without it they
     * would stay in Redis for ever. Client id to {epoch, expiry ms}; written again until Redis takes it (the script is
     * fenced by epoch, so a device that came back meanwhile keeps its live session).
     */
    private final ConcurrentHashMap<String, long[]> expiriesOwed = new ConcurrentHashMap<>();
    private final AtomicLong owedRetryNanos = new AtomicLong(System.nanoTime());
    private final AtomicLong failuresLogged = new AtomicLong();
    private final AtomicLong failuresUnlogged = new AtomicLong();
    private volatile boolean closing;
    private volatile Duration closeTimeout = Duration.ofSeconds(30);
    private final String nodeId;
    private volatile Duration watchInterval = Duration.ofSeconds(5);
    private volatile Duration watchTimeout = Duration.ofSeconds(3);
    private SessionRewrite rewrite;
    private CompletableFuture<Void> closed;
    private final RedisDelayedWills wills;
    /** How long a session open keeps asking while Redis does not answer ({@code session.open-timeout}); 0: once. */
    private volatile long openPatienceNanos;
    private static final long FIRST_RETRY_MILLIS = 100;
    /** A try starts only with this long left after its backoff: its answer must come before the wait ends. */
    private static final long RETRY_MARGIN_MILLIS = 200;

    /**
     * @param client        the Redis client
     * @param keyPrefix     {@code routes.redis.key-prefix}
     * @param expiry        {@code session.expiry}
     * @param maxPending    {@code session.max-pending}
     * @param maxRetained   {@code session.max-retained}, also the most retained messages one SUBSCRIBE filter gets
     * @param ownsClient    whether {@link #close} shuts the client down
     */
    public RedisSessionStore(RedissonClient client, String keyPrefix, Duration expiry, int maxPending,
                             int maxRetained, boolean ownsClient) {
        this(client, keyPrefix, expiry, maxPending, maxRetained, ownsClient, null, 0);
    }

    /**
     * @param nodeId      this node's id: the sessions whose device last disconnected from this node are bounded
     * @param maxSessions {@code session.max-sessions}: past it the one disconnected longest ago is deleted
     */
    public RedisSessionStore(RedissonClient client, String keyPrefix, Duration expiry, int maxPending,
                             int maxRetained, boolean ownsClient, String nodeId, int maxSessions) {
        this(client, RedisConnector.connected(client), keyPrefix, expiry, maxPending, maxRetained, ownsClient, nodeId,
                maxSessions);
    }

    /** @param connector tells when the (lazily connecting) client may be called without connecting on the caller */
    public RedisSessionStore(RedissonClient client, RedisConnector connector, String keyPrefix, Duration expiry,
                             int maxPending, int maxRetained, boolean ownsClient, String nodeId, int maxSessions) {
        this.connector = connector;
        this.nodeId = nodeId;
        this.sessionsLeftKey = nodeId == null ? null : new SessionKeys(keyPrefix).sessionsLeft(nodeId);
        this.maxSessions = ascii(maxSessions);
        this.client = client;
        this.ownsClient = ownsClient;
        this.script = client.getScript(ByteArrayCodec.INSTANCE);
        this.keys = new SessionKeys(keyPrefix);
        this.expiryMillis = expiry.toMillis();
        this.maxPending = ascii(maxPending);
        this.maxRetained = ascii(maxRetained);
        this.retainedLimit = maxRetained;
        this.wills = new RedisDelayedWills(this::eval, connector::connected, keys, WILL_POLL_MILLIS);
    }

    /**
     * {@code session.open-timeout}: a device reconnecting during a failover or a restart of Redis waits that long for
     * its stored session, the open asked again with backoff, rather than being told at the first failed call that it
     * has none (session present 0, its subscriptions and queued messages left behind).
     */
    public void openPatience(Duration openTimeout) {
        this.openPatienceNanos = openTimeout.toNanos();
    }

    /** {@code routes.redis.will-poll-interval} and {@code routes.redis.will-poll-batch}; before the store starts. */
    public void willPolling(Duration interval, int batch) {
        wills.polling(interval.toMillis(), batch);
    }

    private static byte[] ascii(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private List<Object> sessionKeys(String clientId) {
        return List.of(keys.session(clientId), keys.pending(clientId), keys.messages(clientId));
    }

    private <T> CompletionStage<T> eval(String key, String text, RScript.ReturnType type, List<Object> scriptKeys,
                                        Object... args) {
        if (!connector.connected()) {
            refused.incrementAndGet();
            return CompletableFuture.failedFuture(SessionStoreNotConnectedException.INSTANCE);
        }
        CompletableFuture<T> result;
        try {
            result = script.<T>evalAsync(key, RScript.Mode.READ_WRITE, text, type, scriptKeys, args)
                    .toCompletableFuture();
        } catch (RuntimeException e) {
            result = CompletableFuture.failedFuture(e);
        }
        unfinished.incrementAndGet();
        return result.whenComplete((ignored, error) -> {
            unfinished.decrementAndGet();
            if (error == null) {
                lastSuccessNanos.set(System.nanoTime());
                if (!expiriesOwed.isEmpty() && !closing) {
                    retryOwedExpiries(false);
                }
            } else {
                lastFailure = error.toString();
                lastFailureNanos.set(System.nanoTime());
            }
        });
    }

    /**
     * A failed call, in the log at most once a minute (with how many more failed meanwhile): the metrics count every
     * one, but an operator reading the log must see that persistent sessions are not served.
     */
    private void logFailure(String what, String clientId, Throwable error) {
        long now = System.nanoTime();
        long last = failuresLogged.get();
        if ((last == 0 || now - last >= java.util.concurrent.TimeUnit.MINUTES.toNanos(1))
                && failuresLogged.compareAndSet(last, now)) {
            long more = failuresUnlogged.getAndSet(0);
            Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                    ? error.getCause() : error;
            LOG.warn("session store: {} of {} failed ({}){}", what, clientId, cause.toString(),
                    more > 0 ? "; " + more + " more session store calls failed since the last report" : "");
        } else {
            failuresUnlogged.incrementAndGet();
        }
    }

    /** Writes the owed expiries again, at most once a second unless {@code now}; answers when they were sent. */
    private CompletableFuture<Void> retryOwedExpiries(boolean now) {
        long last = owedRetryNanos.get();
        long t = System.nanoTime();
        if (!now && (t - last < java.util.concurrent.TimeUnit.SECONDS.toNanos(1)
                || !owedRetryNanos.compareAndSet(last, t))) {
            return DONE;
        }
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        for (Map.Entry<String, long[]> e : expiriesOwed.entrySet()) {
            long[] owed = e.getValue();
            sent.add(writeExpiry(e.getKey(), owed[0], owed[1]).toCompletableFuture()
                    .handle((started, error) -> null));
        }
        return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
    }

    /** The DISCONNECTED script; owes the expiry when Redis did not take it, forgets it once Redis did. */
    private CompletionStage<Long> writeExpiry(String clientId, long epoch, long expiry) {
        return inOrder(clientId, () -> this.<Long>eval(keys.session(clientId), SessionScripts.DISCONNECTED,
                RScript.ReturnType.LONG, sessionKeys(clientId), ascii(epoch), ascii(expiry)))
                .whenComplete((started, error) -> {
                    if (error == null) {
                        expiriesOwed.computeIfPresent(clientId, (k, owed) -> owed[0] == epoch ? null : owed);
                    } else {
                        expiriesOwed.merge(clientId, new long[] {epoch, expiry},
                                (old, mine) -> old[0] > epoch ? old : mine);
                    }
                });
    }

    @Override
    public CompletionStage<StoredSession> open(String clientId, boolean cleanStart, long expiryMillis, long epoch) {
        boolean nothingKept = cleanStart && expiryMillis == 0;
        long deadline = System.nanoTime() + openPatienceNanos;
        // the script is the same on every try (same epoch, same flags), so one that ran but whose answer was lost
        // changes nothing when it runs again
        CompletionStage<List<Object>> reply = inOrder(clientId, () -> untilAnswered(() -> eval(keys.session(clientId),
                SessionScripts.OPEN, RScript.ReturnType.LIST, List.of(keys.session(clientId), keys.pending(clientId),
                        keys.messages(clientId), keys.will(clientId)),
                cleanStart ? ascii(1) : ascii(0), ascii(epoch), nothingKept ? ascii(0) : ascii(1)), deadline,
                FIRST_RETRY_MILLIS));
        return reply.whenComplete((r, error) -> {
            if (error != null) {
                logFailure("opening the session", clientId, error);
            } else if (r != null && r.size() > 4 && r.get(4) instanceof byte[] will) {
                // a clean start ended a session whose will was waiting for its delay: it goes out now, from here
                wills.sessionEnded(will);
            }
        }).thenApply(r -> nothingKept || r == null || r.isEmpty() ? StoredSession.NONE : session(r));
    }

    /**
     * {@code call}, asked again after {@code backoffMillis} (doubling up to a second) while Redis does not answer
     * and a try still fits before {@code deadline}; a script error or a closing store ends it at once.
     */
    private <T> CompletionStage<T> untilAnswered(Supplier<CompletionStage<T>> call, long deadline,
                                                 long backoffMillis) {
        CompletableFuture<T> result = new CompletableFuture<>();
        call.get().whenComplete((r, error) -> {
            if (error == null) {
                result.complete(r);
                return;
            }
            long left = deadline - System.nanoTime()
                    - TimeUnit.MILLISECONDS.toNanos(backoffMillis + RETRY_MARGIN_MILLIS);
            if (closing || left <= 0 || !unavailable(error)) {
                result.completeExceptionally(error);
                return;
            }
            CompletableFuture.delayedExecutor(backoffMillis, TimeUnit.MILLISECONDS).execute(() ->
                    untilAnswered(call, deadline, Math.min(backoffMillis * 2, 1000)).whenComplete((again, e) -> {
                        if (e == null) {
                            result.complete(again);
                        } else {
                            result.completeExceptionally(e);
                        }
                    }));
        });
        return result;
    }

    /** Redis away (connection lost or refused, timeout, cluster down or failing over), not a script's own error. */
    private static boolean unavailable(Throwable error) {
        Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        return e instanceof RedisException && (e.getMessage() == null || !e.getMessage().startsWith("ERR"));
    }

    @SuppressWarnings("unchecked")
    private static StoredSession session(List<Object> r) {
        boolean existed = r.get(0) instanceof Long n && n == 1;
        Map<String, Subscription> subscriptions = MessageCodec.decodeSubscriptions((byte[]) r.get(1));
        List<Object> ids = r.size() > 2 && r.get(2) instanceof List<?> l ? (List<Object>) l : List.of();
        List<Object> messages = r.size() > 3 && r.get(3) instanceof List<?> l ? (List<Object>) l : List.of();
        List<StoredMessage> pending = new ArrayList<>(ids.size());
        for (int i = 0; i < ids.size() && i < messages.size(); i++) {
            if (messages.get(i) instanceof byte[] bytes) {
                pending.add(new StoredMessage(text(ids.get(i)), MessageCodec.decode(bytes)));
            }
        }
        return new StoredSession(existed, subscriptions, pending);
    }

    /** The operator API's view of a session: one read-only script, not chained (it changes nothing). */
    @Override
    public CompletionStage<Optional<SessionSummary>> describe(String clientId) {
        CompletionStage<List<Object>> reply = eval(keys.session(clientId), SessionScripts.DESCRIBE,
                RScript.ReturnType.LIST, List.of(keys.session(clientId), keys.pending(clientId)));
        long now = System.currentTimeMillis();
        return reply.thenApply(r -> {
            if (r == null || r.size() < 3) {
                return Optional.empty();
            }
            long ttl = r.get(1) instanceof Long l ? l : -1;
            int pending = r.get(2) instanceof Long n ? (int) Math.min(n, Integer.MAX_VALUE) : 0;
            return Optional.of(new SessionSummary(ttl < 0, ttl < 0 ? 0 : now + ttl,
                    MessageCodec.decodeSubscriptions(r.get(0) instanceof byte[] b ? b : null), pending));
        });
    }

    private static String text(Object o) {
        return o instanceof byte[] b ? new String(b, StandardCharsets.US_ASCII) : String.valueOf(o);
    }

    @Override
    public CompletionStage<Void> disconnected(String clientId, long epoch, long expiryMillis) {
        // the device's interval (MQTT 5.0) capped at session.expiry; 0 deletes the session now
        long expiry = Math.max(0, Math.min(expiryMillis, this.expiryMillis));
        return writeExpiry(clientId, epoch, expiry)
                .whenComplete((started, error) -> {
                    if (error != null) {
                        logFailure("writing the expiry of the session", clientId, error);
                    }
                })
                .thenCompose(started -> started != null && started == 1 && sessionsLeftKey != null && expiry > 0
                        ? trackDisconnected(clientId, epoch) : DONE);
    }

    /**
     * Records that the device left this node and deletes, past {@code session.max-sessions}, the sessions whose
     * devices left longest ago (each only if it is still away: {@link SessionScripts#EVICT}). Two scripts on two
     * keys, not one, so that each touches one Redis Cluster slot; a session that comes back in between is kept.
     */
    private CompletionStage<Void> trackDisconnected(String clientId, long epoch) {
        long now = System.currentTimeMillis();
        byte[] member = (epoch + ":" + clientId).getBytes(StandardCharsets.UTF_8);
        return this.<List<Object>>eval(sessionsLeftKey, SessionScripts.TRACK_DISCONNECTED,
                RScript.ReturnType.LIST, List.of(sessionsLeftKey), ascii(now), member, maxSessions,
                ascii(now - expiryMillis)).thenCompose(r -> {
                    if (r == null || r.isEmpty()) {
                        return DONE;
                    }
                    if (r.get(0) instanceof Long n) {
                        sessionsLeft = n;
                    }
                    List<CompletableFuture<Void>> evictions = new ArrayList<>();
                    for (int i = 1; i < r.size(); i += 2) {
                        String popped = r.get(i) instanceof byte[] b ? new String(b, StandardCharsets.UTF_8)
                                : String.valueOf(r.get(i));
                        int colon = popped.indexOf(':');
                        if (colon > 0) {
                            evictions.add(evict(popped.substring(colon + 1),
                                    popped.substring(0, colon)).toCompletableFuture());
                        }
                    }
                    return CompletableFuture.allOf(evictions.toArray(CompletableFuture[]::new));
                });
    }

    private CompletionStage<Void> evict(String clientId, String epoch) {
        return inOrder(clientId, () -> this.<Long>eval(keys.session(clientId), SessionScripts.EVICT,
                RScript.ReturnType.LONG, sessionKeys(clientId), (Object) epoch.getBytes(StandardCharsets.US_ASCII)))
                .thenApply(deleted -> {
                    if (deleted != null && deleted == 1) {
                        evicted.incrementAndGet();
                    }
                    return null;
                });
    }

    /** Sessions deleted to stay within {@code session.max-sessions}. */
    public long evictedCount() {
        return evicted.get();
    }

    /** Calls failed at once because Redis had not answered yet ({@link RedisConnector}). */
    public long refusedCount() {
        return refused.get();
    }

    /** Sessions whose device left this node and that are still tracked for the bound, as Redis last answered. */
    public long sessionsLeft() {
        return sessionsLeft;
    }

    @Override
    public CompletionStage<Void> saveSubscriptions(String clientId, Map<String, Subscription> subscriptions) {
        byte[] encoded = MessageCodec.encodeSubscriptions(subscriptions);
        return inOrder(clientId, () -> this.<Long>eval(keys.session(clientId), SessionScripts.SAVE_SUBSCRIPTIONS,
                RScript.ReturnType.LONG, List.of(keys.session(clientId)), (Object) encoded).thenApply(r -> null));
    }

    private <T> CompletionStage<T> inOrder(String clientId, Supplier<CompletionStage<T>> op) {
        unfinished.incrementAndGet();
        return inOrder(sessionChains, clientId, op).whenComplete((r, e) -> unfinished.decrementAndGet());
    }

    /**
     * Runs {@code op} once the previous operation chained under {@code key} has completed (successfully or not).
     * Redisson spreads commands over a pool of connections, so two scripts sent one after the other may run in
     * Redis in either order; the chain keeps the caller's order per client id (and per retained topic). The op
     * runs outside the map's locks (a callback may chain again).
     */
    private static <T> CompletionStage<T> inOrder(ConcurrentHashMap<String, CompletableFuture<Void>> chains,
                                                  String key, Supplier<CompletionStage<T>> op) {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> previous = chains.put(key, mine);
        CompletableFuture<T> result = (previous == null ? DONE : previous).thenCompose(v -> {
            try {
                return op.get();
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        });
        // 'mine' always completes normally, so a failed operation does not stop the ones behind it
        result.whenComplete((r, e) -> {
            chains.remove(key, mine);
            mine.complete(null);
        });
        return result;
    }

    @Override
    public CompletionStage<Append> append(DownlinkMessage message) {
        String clientId = message.clientId();
        byte[] encoded = MessageCodec.encode(message);
        return inOrder(clientId, () -> this.<Long>eval(keys.session(clientId), SessionScripts.APPEND,
                RScript.ReturnType.LONG, sessionKeys(clientId), maxPending, encoded)).thenApply(id -> {
                    if (id == SessionScripts.APPEND_NO_SESSION) {
                        return Append.NO_SESSION;
                    }
                    return id == SessionScripts.APPEND_FULL ? Append.FULL : Append.stored(Long.toString(id));
                });
    }

    @Override
    public CompletionStage<Void> remove(String clientId, String messageId) {
        byte[] id = messageId.getBytes(StandardCharsets.US_ASCII);
        return inOrder(clientId, () -> this.<Long>eval(keys.session(clientId), SessionScripts.REMOVE,
                RScript.ReturnType.LONG, List.of(keys.pending(clientId), keys.messages(clientId)), (Object) id))
                .thenApply(r -> null);
    }

    @Override
    public CompletionStage<Void> retain(DownlinkMessage message) {
        byte[] encoded = message.payload().length == 0 ? EMPTY : MessageCodec.encode(message);
        byte[] topic = message.topic().getBytes(StandardCharsets.UTF_8);
        return inOrder(retainChains, message.topic(), () -> this.<Long>eval(keys.retained(), SessionScripts.RETAIN,
                RScript.ReturnType.LONG, List.of(keys.retained()), topic, encoded, maxRetained))
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

    @Override
    public CompletionStage<List<DownlinkMessage>> retained(String topicFilter) {
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
        if (now - checked >= SCAN_REUSE_NANOS && connector.connected()
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
        CompletionStage<List<Object>> reply = eval(keys.retained(), SessionScripts.RETAINED, RScript.ReturnType.LIST,
                List.of(keys.retained()), filter, glob, ascii(retainedLimit - found.size()), ascii(cursor),
                ascii(RETAINED_SCAN_COUNT));
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

    @Override
    public Optional<DelayedWillStore> delayedWills() {
        return Optional.of(wills);
    }

    /** Delayed wills this node claimed when due and published. */
    public long willsClaimedCount() {
        return wills.claimedCount();
    }

    /** Polls for due delayed wills that failed. */
    public long willPollFailureCount() {
        return wills.failedPollCount();
    }

    @Override
    public HealthStatus health() {
        if (!connector.connected()) {
            return HealthStatus.degraded("redis session store not connected yet: " + connector.lastError());
        }
        long failed = lastFailureNanos.get();
        if (failed != 0 && failed - lastSuccessNanos.get() > 0) {
            return HealthStatus.degraded("redis session store failing: " + lastFailure);
        }
        return HealthStatus.UP;
    }

    /**
     * How often the store checks that Redis kept its data ({@link SessionRewrite}) and how long one call may take;
     * set before {@link #start}.
     */
    public void watch(Duration interval, Duration timeout) {
        this.watchInterval = interval;
        this.watchTimeout = timeout;
    }

    /** Watches for Redis losing its data, to write the sessions of {@code node}'s connected devices again. */
    @Override
    public synchronized void start(LiveSessions node) {
        if (nodeId == null || rewrite != null || closed != null) {
            return;
        }
        String runId = nodeId + "/" + ProcessHandle.current().pid() + "/" + System.nanoTime();
        rewrite = new SessionRewrite(client, connector, keys.watch(nodeId), runId, watchInterval, watchTimeout,
                this::rewrite);
        rewrite.start(node);
    }

    /** Sessions of connected devices written again after Redis lost data. */
    public long rewrittenCount() {
        SessionRewrite r = rewrite;
        return r == null ? 0 : r.rewrites();
    }

    /** One connected device's session written again ({@link SessionScripts#REWRITE}), in order with its calls. */
    private CompletableFuture<Long> rewrite(LiveSessions.LiveSession s) {
        String key = s.sessionKey();
        return inOrder(key, () -> this.<Long>eval(keys.session(key), SessionScripts.REWRITE, RScript.ReturnType.LONG,
                sessionKeys(key), ascii(s.epoch()), MessageCodec.encodeSubscriptions(s.subscriptions()),
                ascii(System.currentTimeMillis()))).toCompletableFuture();
    }

    /** How long {@link #close} waits for calls in flight and owed expiries ({@code shutdown.timeout}). */
    public void closeTimeout(Duration timeout) {
        this.closeTimeout = timeout;
    }

    /** Sessions whose expiry is still owed (not written yet). */
    public int expiriesOwed() {
        return expiriesOwed.size();
    }

    /**
     * Waits, on a thread of its own and at most {@link #closeTimeout}, until the calls in flight completed (also
     * those chained later, such as a session's eviction) and every owed expiry is written (retried while Redis
     * fails over), then stops the client. Never from a Redis client thread: the client cannot stop itself.
     */
    @Override
    public synchronized CompletionStage<Void> close() {
        if (closed != null) {
            return closed;
        }
        closed = new CompletableFuture<>();
        if (rewrite != null) {
            rewrite.stop();
        }
        // wills still armed stay in Redis: the other nodes publish them when due
        wills.stop();
        long deadline = System.nanoTime() + closeTimeout.toNanos();
        Thread t = new Thread(() -> {
            try {
                long nextRetry = System.nanoTime();
                // idle twice in a row: a chained call starts only as the one before it completes
                int idle = 0;
                while (System.nanoTime() - deadline < 0 && idle < 2) {
                    idle = unfinished.get() == 0 && expiriesOwed.isEmpty() ? idle + 1 : 0;
                    if (!expiriesOwed.isEmpty() && unfinished.get() == 0 && System.nanoTime() - nextRetry >= 0) {
                        retryOwedExpiries(true);
                        nextRetry = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(200);
                    }
                    java.util.concurrent.locks.LockSupport.parkNanos(
                            java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(20));
                }
                closing = true;
                if (!expiriesOwed.isEmpty() || unfinished.get() > 0) {
                    LOG.warn("session store closed after {} s with {} calls unanswered and {} persistent sessions "
                            + "without their expiry (they stay in Redis until their devices connect again)",
                            closeTimeout.toSeconds(), unfinished.get(), expiriesOwed.size());
                }
                connector.close();
                if (ownsClient) {
                    client.shutdown(0, 2, java.util.concurrent.TimeUnit.SECONDS);
                }
            } finally {
                closed.complete(null);
            }
        }, "redis-session-close");
        t.setDaemon(true);
        t.start();
        return closed;
    }
}
