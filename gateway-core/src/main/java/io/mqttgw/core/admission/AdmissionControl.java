package io.mqttgw.core.admission;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.tls.HandshakeKind;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The node's admission budget: CPU time for new connections a second (a token bucket counted in full handshakes:
 * each new connection is charged one, and a handshake that ends as a known device or a resumed session gets the
 * difference to its kind's cost back) and TLS handshakes in progress (the crypto budget), and whether the node takes
 * new connections at all right now (not while it is busy or, with
 * {@code overload.pause-handshakes}, overloaded). Also counts handshakes started, which the overload monitor turns
 * into a rate, and carries the CONNECT refusal that handlers consult. Thread-safe.
 */
public final class AdmissionControl {

    /** Why a new connection cannot start now; a label of the admission meters. */
    public enum Rejection {
        RATE, HANDSHAKES, BUSY;

        final String label = name().toLowerCase(Locale.ROOT);
    }

    /**
     * While busy, TLS connections are admitted up to this share of the handshake budget: the loops get to catch up,
     * yet never sit idle with devices waiting (holding everything until the lag is gone would leave the CPU idle
     * while the waiting devices run into their handshake timeouts).
     */
    static final int BUSY_SHARE = 4;

    /** The budget's limits; replaced whole by {@link #retune} (a config reload), read once per decision. */
    private volatile Limits limits;
    /** Tokens a completed handshake gets back, by {@link HandshakeKind}: one minus its cost share. */
    private final Counter[] completed = new Counter[HandshakeKind.values().length];
    private final Counter charged;
    private final Counter refunded;
    private final AtomicInteger handshakes = new AtomicInteger();
    private final LongAdder handshakesStarted = new LongAdder();
    private final Counter[] held = new Counter[Rejection.values().length];
    private final Counter[] rejected = new Counter[Rejection.values().length];
    private volatile boolean busy;
    private volatile boolean holdForOverload;
    private volatile boolean refuseConnects;

    /**
     * Every connection charged as a full handshake, nothing given back.
     *
     * @param connectionRate new connections a second, 0 for no limit; @param maxHandshakes 0 for no limit
     */
    public AdmissionControl(int connectionRate, int maxHandshakes, MeterRegistry meters) {
        this(new AdmissionBudget(connectionRate, maxHandshakes, false, false, 1, 1), meters, System::nanoTime);
    }

    public AdmissionControl(AdmissionBudget budget, MeterRegistry meters) {
        this(budget, meters, System::nanoTime);
    }

    AdmissionControl(AdmissionBudget budget, MeterRegistry meters, LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        this.limits = new Limits(budget, nanoClock);
        for (HandshakeKind kind : HandshakeKind.values()) {
            completed[kind.ordinal()] = Counter.builder("mqttgw.admission.handshakes").tag("kind", kind.label)
                    .description("TLS handshakes completed, by the kind admission charged them as (full, "
                            + "known-device: verifier cache hit, resumed)").register(meters);
        }
        this.charged = Counter.builder("mqttgw.admission.charged").baseUnit("handshakes")
                .description("Connection-rate tokens charged at admission, in full handshakes").register(meters);
        this.refunded = Counter.builder("mqttgw.admission.refunded").baseUnit("handshakes")
                .description("Connection-rate tokens given back when a handshake ended cheaper than a full one, in "
                        + "full handshakes").register(meters);
        if (limits.connections != null) {
            Gauge.builder("mqttgw.admission.tokens", this, AdmissionControl::tokensAvailable).baseUnit("handshakes")
                    .description("Connection-rate tokens available now, in full handshakes").register(meters);
        }
        for (Rejection r : Rejection.values()) {
            held[r.ordinal()] = Counter.builder("mqttgw.admission.held").tag("reason", r.label)
                    .description("Times the listener stopped taking new connections off its backlog, by reason")
                    .register(meters);
            rejected[r.ordinal()] = Counter.builder("mqttgw.admission.rejected").tag("reason", r.label)
                    .description("New connections closed before their handshake, by reason").register(meters);
        }
        Gauge.builder("mqttgw.tls.handshakes.in.progress", handshakes, AtomicInteger::get)
                .description("TLS handshakes under way").register(meters);
    }

    private final LongSupplier nanoClock;

    /** One budget's limits: the connection-rate bucket (null: no limit), the handshake bounds, the refunds by kind. */
    private static final class Limits {
        final TokenBucket connections;
        final int maxHandshakes;
        final int busyHandshakes;
        final double[] refunds = new double[HandshakeKind.values().length];

        Limits(AdmissionBudget budget, LongSupplier nanoClock) {
            int rate = budget.connectionRate();
            // a burst of up to a second's rate; the handshake budget bounds what a burst can start at once
            this.connections = rate > 0 ? new TokenBucket(rate, rate, nanoClock) : null;
            this.maxHandshakes = budget.maxHandshakes();
            this.busyHandshakes = Math.max(1, maxHandshakes / BUSY_SHARE);
            refunds[HandshakeKind.FULL.ordinal()] = 0;
            refunds[HandshakeKind.KNOWN_DEVICE.ordinal()] = 1 - budget.knownDeviceShare();
            refunds[HandshakeKind.RESUMED.ordinal()] = 1 - budget.resumedShare();
        }
    }

    /** The current bucket's tokens (NaN after a reload turned the rate limit off). */
    private double tokensAvailable() {
        TokenBucket bucket = limits.connections;
        return bucket == null ? Double.NaN : bucket.available();
    }

    /**
     * A new budget from a config reload: decisions from now on use it. The connection-rate bucket starts full, as at
     * startup; handshakes in progress keep their slots and count against the new bound. Whether the tokens gauge
     * exists stays as started (a rate limit turned on by a reload is applied but not graphed until a restart). Any
     * thread.
     */
    public void retune(AdmissionBudget budget) {
        this.limits = new Limits(budget, nanoClock);
    }

    /**
     * Admits a new connection, or says why not (nothing is taken then); an admitted TLS connection holds a
     * handshake slot.
     */
    public Rejection admit(boolean tls) {
        Limits l = limits;
        TokenBucket connections = l.connections;
        int maxHandshakes = l.maxHandshakes;
        if (holdForOverload || (busy && (!tls || maxHandshakes <= 0))) {
            return Rejection.BUSY;
        }
        if (tls && maxHandshakes > 0 && handshakes.get() >= (busy ? l.busyHandshakes : maxHandshakes)) {
            return busy ? Rejection.BUSY : Rejection.HANDSHAKES;
        }
        if (connections != null) {
            if (!connections.tryAcquire()) {
                return Rejection.RATE;
            }
            charged.increment();
        }
        if (tls) {
            // only the accept loop admits, so the check above cannot be overtaken
            handshakes.incrementAndGet();
            handshakesStarted.increment();
        }
        return null;
    }

    /** Counts that the gate held the listener (a connection waits in the backlog) for this reason. */
    void held(Rejection reason) {
        held[reason.ordinal()].increment();
    }

    /** Counts a new connection closed before its handshake. */
    void rejected(Rejection reason) {
        rejected[reason.ordinal()].increment();
    }

    /**
     * A TLS handshake admitted here completed as {@code kind}: counts it, and gives back the part of its full
     * handshake charge that its kind did not cost. Failed handshakes get nothing back (they may have cost a full
     * one, and a refund would make failing cheap for a flood). Any thread.
     */
    public void handshakeCompleted(HandshakeKind kind) {
        completed[kind.ordinal()].increment();
        Limits l = limits;
        double refund = l.refunds[kind.ordinal()];
        if (l.connections != null && refund > 0) {
            l.connections.refund(refund);
            refunded.increment(refund);
        }
    }

    /** Handshakes completed as {@code kind} since the node started. */
    public double handshakesCompleted(HandshakeKind kind) {
        return completed[kind.ordinal()].count();
    }

    /** Gives back the handshake slot of an admitted TLS connection (handshake done, failed or connection closed). */
    public void handshakeEnded() {
        handshakes.decrementAndGet();
    }

    public int handshakesInProgress() {
        return handshakes.get();
    }

    /** Handshakes started since the node started; the overload monitor takes its rate. */
    public long handshakesStarted() {
        return handshakesStarted.sum();
    }

    /**
     * Busy (event-loop lag or handshake rate past its threshold): the handshake budget shrinks to a quarter, the rest
     * waits in the listen backlog (without a handshake budget, and for plain TCP, everything waits); everything
     * already admitted carries on.
     */
    public void busy(boolean value) {
        busy = value;
    }

    public boolean busy() {
        return busy;
    }

    /**
     * Overload reaction ({@code overload.pause-handshakes}): new connections wait in the listen backlog. Handshakes
     * already admitted are not paused: they are bounded by the budget, and a paused one would only run into the
     * handshake timeout and come back as a retry.
     */
    public void holdForOverload(boolean value) {
        holdForOverload = value;
    }

    /** Overload reaction: CONNECTs are answered with CONNACK server unavailable after a random delay. */
    public void refuseConnects(boolean value) {
        refuseConnects = value;
    }

    public boolean refuseConnects() {
        return refuseConnects;
    }

    public double rejections(Rejection reason) {
        return rejected[reason.ordinal()].count();
    }

    public double holds(Rejection reason) {
        return held[reason.ordinal()].count();
    }
}
