package io.mqttgw.routing.session;

import static io.mqttgw.routing.session.SessionCalls.ascii;

import io.mqttgw.core.spi.DelayedWillStore;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.HealthStatus;
import io.mqttgw.core.spi.LiveSessions;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.spi.Subscription;
import io.mqttgw.routing.redis.RedisConnector;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;

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
 * an offline device, or a save of subscriptions and the expiry that follows). Thread-safe. The jobs are split:
 * {@link SessionCalls} (every Redis call), {@link SessionExpiries} (a device leaving), {@link RetainedMessages},
 * {@link RedisDelayedWills}, {@link SessionRewrite} (Redis losing its data), {@link SessionOpen} (restoring a
 * session at CONNECT), {@link SessionStoreClose}; this class queues downlink for sessions and wires the jobs.
 *
 * <p>Until Redis has answered once ({@link RedisConnector}), every call fails at once with
 * {@link SessionStoreNotConnectedException} and is counted ({@link #refusedCount}): the lazily connecting client would
 * otherwise connect on the caller's thread, an event loop. The gateway then serves a CONNECT as a new session and
 * does not queue downlink for offline devices.
 */
public final class RedisSessionStore implements SessionStore {
    /** How often the node looks for delayed wills that fell due: the most a will is published late. */
    static final long WILL_POLL_MILLIS = 1000;

    private final RedissonClient client;
    private final SessionKeys keys;
    private final byte[] maxPending;
    private final boolean ownsClient;
    private final RedisConnector connector;
    private final SessionCalls calls;
    private final SessionExpiries expiries;
    private final RetainedMessages retainedMessages;
    private volatile Duration closeTimeout = Duration.ofSeconds(30);
    private final String nodeId;
    private volatile Duration watchInterval = Duration.ofSeconds(5);
    private volatile Duration watchTimeout = Duration.ofSeconds(3);
    private SessionRewrite rewrite;
    private CompletableFuture<Void> closed;
    private final RedisDelayedWills wills;
    private final SessionOpen opening;

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
        this.client = client;
        this.ownsClient = ownsClient;
        this.keys = new SessionKeys(keyPrefix);
        this.maxPending = ascii(maxPending);
        this.calls = new SessionCalls(client, connector);
        this.expiries = new SessionExpiries(calls, keys, expiry.toMillis(),
                nodeId == null ? null : keys.sessionsLeft(nodeId), maxSessions);
        calls.afterAnswer(() -> expiries.retryOwed(false));
        this.retainedMessages = new RetainedMessages(client, calls, keys, maxRetained);
        this.wills = new RedisDelayedWills(calls::eval, connector::connected, keys, WILL_POLL_MILLIS);
        this.opening = new SessionOpen(calls, keys, wills);
    }

    /**
     * {@code session.open-timeout}: a device reconnecting during a failover or a restart of Redis waits that long for
     * its stored session, the open asked again with backoff, rather than being told at the first failed call that it
     * has none (session present 0, its subscriptions and queued messages left behind).
     */
    public void openPatience(Duration openTimeout) {
        opening.patience(openTimeout);
    }

    /** {@code routes.redis.will-poll-interval} and {@code routes.redis.will-poll-batch}; before the store starts. */
    public void willPolling(Duration interval, int batch) {
        wills.polling(interval.toMillis(), batch);
    }

    private List<Object> sessionKeys(String clientId) {
        return List.of(keys.session(clientId), keys.pending(clientId), keys.messages(clientId));
    }

    @Override
    public CompletionStage<StoredSession> open(String clientId, boolean cleanStart, long expiryMillis, long epoch) {
        return opening.open(clientId, cleanStart, expiryMillis, epoch);
    }

    /** The operator API's view of a session: one read-only script, not chained (it changes nothing). */
    @Override
    public CompletionStage<Optional<SessionSummary>> describe(String clientId) {
        CompletionStage<List<Object>> reply = calls.eval(keys.session(clientId), SessionScripts.DESCRIBE,
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

    @Override
    public CompletionStage<Void> disconnected(String clientId, long epoch, long expiryMillis) {
        return expiries.disconnected(clientId, epoch, expiryMillis);
    }

    /** Sessions deleted to stay within {@code session.max-sessions}. */
    public long evictedCount() {
        return expiries.evictedCount();
    }

    /** Calls failed at once because Redis had not answered yet ({@link RedisConnector}). */
    public long refusedCount() {
        return calls.refusedCount();
    }

    /**
     * Session opens not sent, the device served as a new session at once, because Redis had answered nothing for a
     * whole {@code session.open-timeout}.
     */
    public long skippedCount() {
        return opening.skippedCount();
    }

    /** Sessions whose device left this node and that are still tracked for the bound, as Redis last answered. */
    public long sessionsLeft() {
        return expiries.sessionsLeft();
    }

    @Override
    public CompletionStage<Void> saveSubscriptions(String clientId, Map<String, Subscription> subscriptions) {
        byte[] encoded = MessageCodec.encodeSubscriptions(subscriptions);
        return calls.inOrder(clientId, () -> calls.<Long>eval(keys.session(clientId),
                SessionScripts.SAVE_SUBSCRIPTIONS, RScript.ReturnType.LONG, List.of(keys.session(clientId)),
                (Object) encoded).thenApply(r -> null));
    }

    @Override
    public CompletionStage<Append> append(DownlinkMessage message) {
        String clientId = message.clientId();
        byte[] encoded = MessageCodec.encode(message);
        return calls.inOrder(clientId, () -> calls.<Long>eval(keys.session(clientId), SessionScripts.APPEND,
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
        return calls.inOrder(clientId, () -> calls.<Long>eval(keys.session(clientId), SessionScripts.REMOVE,
                RScript.ReturnType.LONG, List.of(keys.pending(clientId), keys.messages(clientId)), (Object) id))
                .thenApply(r -> null);
    }

    @Override
    public CompletionStage<Void> retain(DownlinkMessage message) {
        return retainedMessages.retain(message);
    }

    @Override
    public CompletionStage<List<DownlinkMessage>> retained(String topicFilter) {
        return retainedMessages.retained(topicFilter);
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
        return calls.health();
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
        return calls.inOrder(key, () -> calls.<Long>eval(keys.session(key), SessionScripts.REWRITE,
                RScript.ReturnType.LONG, sessionKeys(key), ascii(s.epoch()),
                MessageCodec.encodeSubscriptions(s.subscriptions()), ascii(System.currentTimeMillis())))
                .toCompletableFuture();
    }

    /** How long {@link #close} waits for calls in flight and owed expiries ({@code shutdown.timeout}). */
    public void closeTimeout(Duration timeout) {
        this.closeTimeout = timeout;
    }

    /** Sessions whose expiry is still owed (not written yet). */
    public int expiriesOwed() {
        return expiries.owed();
    }

    /**
     * Stops watching and polling, then waits, on a thread of its own and at most {@link #closeTimeout}, for the calls
     * in flight and the owed expiries ({@link SessionStoreClose}) before it stops the client.
     */
    @Override
    public synchronized CompletionStage<Void> close() {
        if (closed != null) {
            return closed;
        }
        if (rewrite != null) {
            rewrite.stop();
        }
        // wills still armed stay in Redis: the other nodes publish them when due
        wills.stop();
        closed = SessionStoreClose.start(calls, expiries, connector, client, ownsClient, closeTimeout);
        return closed;
    }
}
