package io.mqttgw.core.tls;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.spi.TicketKeySource;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rotates the TLS listener's session-ticket keys on a schedule and keeps the ones that may still decrypt a ticket.
 * Time is cut into epochs of {@code rotation} counted from the Unix epoch, so every node agrees on which epoch is
 * current without talking to the others; the key of an epoch comes from the {@link TicketKeySource} (the cluster's
 * shared one through Redis, or this node's own). In force at any time: the current epoch's key, which encrypts new
 * tickets; the next epoch's (a node whose clock is a little ahead may already issue tickets with it); and the previous
 * {@code ceil(session-timeout / rotation)} epochs' (a ticket may be presented until its session times out). The
 * engine renews a ticket decrypted with an older key. Keys live in memory only.
 *
 * <p>When the source cannot answer (Redis down), the node keeps the keys it has and, for an epoch it has no shared key
 * for, uses its own random candidate, which it also offers to the source when it answers again; a ticket made with a
 * local key resumes on this node only. Nothing here blocks an event loop: the work runs on the housekeeping
 * scheduler, the source's answers are handed back to it, and the keys are set on the TLS context from there.
 * Confined to the scheduler thread, apart from {@link #start}, which waits for the first keys.
 */
public final class TicketKeyRotation implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TicketKeyRotation.class);
    /** How long startup waits for the first shared keys before it serves with local ones. */
    static final Duration STARTUP_WAIT = Duration.ofSeconds(5);

    private final long rotationMillis;
    private final int previous;
    private final TicketKeySource source;
    private final Consumer<List<byte[]>> apply;
    private final LongSupplier clock;
    private final SecureRandom random = new SecureRandom();
    /** Keys the source answered with, by epoch. */
    private final Map<Long, byte[]> shared = new HashMap<>();
    /** This node's own random key per epoch: offered to the source, used while it cannot answer. */
    private final Map<Long, byte[]> candidates = new HashMap<>();
    /** Epochs whose local candidate has encrypted tickets (so it keeps decrypting them after a shared key came). */
    private final Set<Long> usedLocally = new HashSet<>();
    private final Set<Long> asking = new HashSet<>();
    private final Counter rotations;
    private final Counter sourceFailures;
    private volatile int keysInForce;
    private volatile boolean currentShared;
    private byte[] lastCurrent;
    private List<byte[]> lastApplied = List.of();
    private ScheduledExecutorService scheduler;
    private ScheduledFuture<?> schedule;
    private final CompletableFuture<Void> firstKeys = new CompletableFuture<>();

    /**
     * @param rotation       how long one key encrypts new tickets
     * @param sessionTimeout how long a ticket may be presented ({@code listener.tls.session-timeout})
     * @param apply          sets the keys (current first) on the TLS context; called on the scheduler thread
     */
    public TicketKeyRotation(Duration rotation, Duration sessionTimeout, TicketKeySource source,
                             Consumer<List<byte[]>> apply, LongSupplier clockMillis, MeterRegistry meters) {
        this.rotationMillis = rotation.toMillis();
        this.previous = (int) Math.max(1, (sessionTimeout.toMillis() + rotationMillis - 1) / rotationMillis);
        this.source = source;
        this.apply = apply;
        this.clock = clockMillis;
        this.rotations = Counter.builder("mqttgw.tls.ticket.key.rotations")
                .description("Times the key that encrypts new TLS session tickets changed").register(meters);
        this.sourceFailures = Counter.builder("mqttgw.tls.ticket.key.source.failures")
                .description("Ticket-key requests the shared source (Redis) did not answer; the node kept its keys")
                .register(meters);
        Gauge.builder("mqttgw.tls.ticket.keys", this, r -> r.keysInForce)
                .description("TLS session-ticket keys in force (one encrypts, all decrypt)").register(meters);
        Gauge.builder("mqttgw.tls.ticket.key.shared", this, r -> r.currentShared ? 1 : 0)
                .description("1 when the key encrypting new tickets is the cluster's shared one, 0 when it is this "
                        + "node's own (shared source unreachable or local)").register(meters);
    }

    /**
     * Asks for the first keys, waits up to {@link #STARTUP_WAIT} for them (startup thread, never an event loop), and
     * refreshes every {@code min(rotation / 8, 30 s)} (at least 1 s) on {@code scheduler}. Without an answer in
     * time the node starts with local keys and picks up the shared ones at the next refresh.
     */
    public void start(ScheduledExecutorService scheduler) {
        this.scheduler = scheduler;
        scheduler.execute(this::refresh);
        try {
            firstKeys.get(STARTUP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warn("no TLS ticket keys from {} within {} s: serving with this node's own keys until it answers",
                    source.describe(), STARTUP_WAIT.toSeconds());
            scheduler.execute(this::applyLocalFallback);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot set the TLS ticket keys: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long every = Math.max(1000, Math.min(rotationMillis / 8, 30_000));
        schedule = scheduler.scheduleWithFixedDelay(this::refresh, every, every, TimeUnit.MILLISECONDS);
        LOG.info("TLS session tickets: keys from {}, rotated every {} s, {} previous key(s) kept for decryption",
                source.describe(), rotationMillis / 1000, previous);
    }

    /** Brings the window of epochs up to date, asks the source for what is missing, and applies. Scheduler only. */
    void refresh() {
        try {
            long current = epoch();
            List<Long> window = window(current);
            shared.keySet().retainAll(window);
            candidates.keySet().retainAll(window);
            usedLocally.retainAll(window);
            Duration keepFor = Duration.ofMillis(rotationMillis * (previous + 3L));
            for (long e : window) {
                if (!shared.containsKey(e) && asking.add(e)) {
                    byte[] candidate = candidates.computeIfAbsent(e, k -> newKey());
                    CompletableFuture<byte[]> answer;
                    try {
                        answer = source.keyFor(e, candidate.clone(), keepFor).toCompletableFuture();
                    } catch (RuntimeException failed) {
                        answer = CompletableFuture.failedFuture(failed);
                    }
                    answer.whenComplete((key, error) -> scheduler.execute(() -> settle(e, key, error)));
                }
            }
            // after startup, apply what there is (a rotation must not wait for a source that is slow to answer)
            if (asking.isEmpty() || firstKeys.isDone()) {
                applyKeys();
            }
        } catch (RuntimeException e) {
            LOG.warn("TLS ticket key refresh failed, keeping the current keys", e);
            firstKeys.completeExceptionally(e);
        }
    }

    private void settle(long epoch, byte[] key, Throwable error) {
        asking.remove(epoch);
        if (error != null || key == null || key.length != TicketKeySource.KEY_BYTES) {
            sourceFailures.increment();
            LOG.debug("no ticket key for epoch {} from {}: {}", epoch, source.describe(),
                    error != null ? error.toString() : "bad key material");
        } else if (window(epoch()).contains(epoch)) {
            shared.put(epoch, key);
        }
        if (asking.isEmpty()) {
            applyKeys();
        }
    }

    private void applyLocalFallback() {
        applyKeys();
    }

    /** Sets the keys on the TLS context when they changed: the current epoch's first. */
    private void applyKeys() {
        long current = epoch();
        List<byte[]> keys = new ArrayList<>();
        byte[] encrypting = shared.get(current);
        if (encrypting == null) {
            encrypting = candidates.computeIfAbsent(current, k -> newKey());
            usedLocally.add(current);
        }
        keys.add(encrypting);
        for (long e : window(current)) {
            byte[] k = shared.get(e);
            if (k != null && k != encrypting) {
                keys.add(k);
            }
            byte[] own = candidates.get(e);
            if (own != null && own != encrypting && usedLocally.contains(e)) {
                keys.add(own);
            }
        }
        if (!sameKeys(keys, lastApplied)) {
            apply.accept(List.copyOf(keys));
            if (lastCurrent != null && !Arrays.equals(lastCurrent, encrypting)) {
                rotations.increment();
                LOG.info("TLS ticket key rotated (epoch {}, {})", current, shared.containsKey(current) ? "shared"
                        : "this node's own");
            }
            lastApplied = keys;
            lastCurrent = encrypting;
        }
        keysInForce = keys.size();
        currentShared = source.shared() && shared.containsKey(current);
        firstKeys.complete(null);
    }

    private static boolean sameKeys(List<byte[]> a, List<byte[]> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!Arrays.equals(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    /** Current first, then the next, then the previous ones. */
    private List<Long> window(long current) {
        List<Long> window = new ArrayList<>(previous + 2);
        window.add(current);
        window.add(current + 1);
        for (int i = 1; i <= previous; i++) {
            window.add(current - i);
        }
        return window;
    }

    private long epoch() {
        return Math.floorDiv(clock.getAsLong(), rotationMillis);
    }

    private byte[] newKey() {
        byte[] key = new byte[TicketKeySource.KEY_BYTES];
        random.nextBytes(key);
        return key;
    }

    /** Keys kept for decryption besides the current one's epoch. */
    int previousKept() {
        return previous;
    }

    @Override
    public void close() {
        if (schedule != null) {
            schedule.cancel(false);
        }
    }
}
