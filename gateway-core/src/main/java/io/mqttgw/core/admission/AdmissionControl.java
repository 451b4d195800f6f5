package io.mqttgw.core.admission;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The node's admission budget: new connections a second (a token bucket) and TLS handshakes in progress (the
 * crypto budget). Also counts handshakes started, which the overload monitor turns into a rate, and carries the
 * overload reactions that handlers consult (pause handshakes, refuse CONNECTs). Thread-safe.
 */
public final class AdmissionControl {

    /** Why a new connection was turned away; a label of {@code mqttgw_admission_rejected_total}. */
    public enum Rejection {
        RATE, HANDSHAKES;

        final String label = name().toLowerCase(Locale.ROOT);
    }

    private final TokenBucket connections;
    private final int maxHandshakes;
    private final AtomicInteger handshakes = new AtomicInteger();
    private final LongAdder handshakesStarted = new LongAdder();
    private final Counter[] rejected = new Counter[Rejection.values().length];
    private volatile boolean pauseHandshakes;
    private volatile boolean refuseConnects;

    /** @param connectionRate new connections a second, 0 for no limit; @param maxHandshakes 0 for no limit */
    public AdmissionControl(int connectionRate, int maxHandshakes, MeterRegistry meters) {
        this.connections = connectionRate > 0 ? new TokenBucket(connectionRate, connectionRate, System::nanoTime)
                : null;
        this.maxHandshakes = maxHandshakes;
        for (Rejection r : Rejection.values()) {
            rejected[r.ordinal()] = Counter.builder("mqttgw.admission.rejected").tag("reason", r.label)
                    .description("New connections turned away before their handshake, by reason").register(meters);
        }
        Gauge.builder("mqttgw.tls.handshakes.in.progress", handshakes, AtomicInteger::get)
                .description("TLS handshakes under way").register(meters);
    }

    /** Admits a new connection, or says why not; an admitted TLS connection holds a handshake slot. */
    public Rejection admit(boolean tls) {
        if (connections != null && !connections.tryAcquire()) {
            return reject(Rejection.RATE);
        }
        if (tls) {
            if (maxHandshakes > 0 && handshakes.incrementAndGet() > maxHandshakes) {
                handshakes.decrementAndGet();
                return reject(Rejection.HANDSHAKES);
            }
            if (maxHandshakes <= 0) {
                handshakes.incrementAndGet();
            }
            handshakesStarted.increment();
        }
        return null;
    }

    private Rejection reject(Rejection reason) {
        rejected[reason.ordinal()].increment();
        return reason;
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

    /** Overload reaction: connections in their TLS handshake stop being read until recovery. */
    public void pauseHandshakes(boolean value) {
        pauseHandshakes = value;
    }

    public boolean pauseHandshakes() {
        return pauseHandshakes;
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
}
