package io.mqttgw.bench.sim.device;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Counters of one fleet, written by its event loops and read once a second by the reporter: gauges (connected,
 * connecting), cumulative counters, and two interval latency recorders (PUBLISH to PUBACK, connect start to
 * CONNACK), in microseconds. Thread-safe (adders, atomics, HdrHistogram recorders).
 */
public final class FleetStats {
    /** Latencies above this (in microseconds) are clamped, so one stuck message cannot resize a histogram. */
    public static final long MAX_MICROS = 600_000_000L;

    final AtomicInteger connected = new AtomicInteger();
    final AtomicInteger connecting = new AtomicInteger();
    final LongAdder handshakesFull = new LongAdder();
    final LongAdder handshakesResumed = new LongAdder();
    final LongAdder connacks = new LongAdder();
    /** Wall-clock time (epoch ms) of the latest CONNACK: a storm's recovery ends there, not at the next report. */
    final AtomicLong lastConnackMillis = new AtomicLong();
    /**
     * First connections the ramp's schedule called for that the connector could not start because its tick came
     * later than its bucket holds (the client was short of CPU), not because the in-flight cap held them. Not zero
     * means the client offered less than the rate it was asked for.
     */
    final LongAdder startsMissed = new LongAdder();
    final LongAdder published = new LongAdder();
    final LongAdder publishedQos1 = new LongAdder();
    final LongAdder acked = new LongAdder();
    final LongAdder pings = new LongAdder();
    final LongAdder dropped = new LongAdder();
    final LongAdder unexpectedDisconnects = new LongAdder();
    final LongAdder subscribed = new LongAdder();
    /** Devices whose connection ended without the bench closing it and that have not had a CONNACK since. */
    final AtomicInteger awaitingReturn = new AtomicInteger();
    /** Devices back after such a loss; of them, those that resumed TLS and those told session present. */
    final LongAdder returns = new LongAdder();
    final LongAdder returnsResumed = new LongAdder();
    final LongAdder returnsSessionPresent = new LongAdder();
    final LongAdder returnMillisTotal = new LongAdder();
    final AtomicLong returnMillisMax = new AtomicLong();
    /** Wall-clock time (epoch ms) of the latest such return: a wave ends there. */
    final AtomicLong lastReturnMillis = new AtomicLong();
    /** QoS 1 PUBLISHes whose connection ended before their PUBACK: the device never learnt they arrived. */
    final LongAdder qos1Unacked = new LongAdder();
    /** QoS 1 PUBLISHes sent again (DUP set, same packet id) after a reconnect, and of those the ones acknowledged. */
    final LongAdder qos1Resent = new LongAdder();
    final LongAdder qos1AckedAfterResend = new LongAdder();
    /** Unacknowledged QoS 1 PUBLISHes a clean-session device gave up when its connection ended: never resent. */
    final LongAdder qos1Abandoned = new LongAdder();
    /** QoS 1 PUBLISHes not sent because the device's in-flight window was full. */
    final LongAdder qos1WindowFull = new LongAdder();
    /** QoS 1 PUBLISHes sent and not yet acknowledged (a gauge). */
    final LongAdder qos1Outstanding = new LongAdder();
    private final Recorder pingLatency = new Recorder(3);
    private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
    private final Recorder ackLatency = new Recorder(3);
    private final Recorder connectLatency = new Recorder(3);

    void failure(String reason) {
        failures.computeIfAbsent(reason, r -> new LongAdder()).increment();
    }

    void connack(long nanosSinceConnectStart) {
        connacks.increment();
        lastConnackMillis.accumulateAndGet(System.currentTimeMillis(), Math::max);
        connectLatency.recordValue(Math.min(MAX_MICROS, Math.max(0, nanosSinceConnectStart / 1000)));
    }

    void ackLatencyNanos(long nanos) {
        ackLatency.recordValue(Math.min(MAX_MICROS, Math.max(0, nanos / 1000)));
    }

    void returned(long nanosSinceLoss, boolean resumed, boolean sessionPresent) {
        long millis = nanosSinceLoss / 1_000_000;
        awaitingReturn.decrementAndGet();
        returns.increment();
        if (resumed) {
            returnsResumed.increment();
        }
        if (sessionPresent) {
            returnsSessionPresent.increment();
        }
        returnMillisTotal.add(millis);
        returnMillisMax.accumulateAndGet(millis, Math::max);
        lastReturnMillis.accumulateAndGet(System.currentTimeMillis(), Math::max);
    }

    void pingLatencyNanos(long nanos) {
        pingLatency.recordValue(Math.min(MAX_MICROS, Math.max(0, nanos / 1000)));
    }

    /** PINGREQ to PINGRESP latencies since the previous call, in microseconds. */
    public Histogram pingLatencyInterval() {
        return pingLatency.getIntervalHistogram();
    }

    public int connected() {
        return connected.get();
    }

    public int connecting() {
        return connecting.get();
    }

    /** Cumulative values since the fleet started, and the latencies since the previous snapshot. */
    public Snapshot snapshot() {
        Map<String, Long> f = new TreeMap<>();
        failures.forEach((k, v) -> f.put(k, v.sum()));
        return new Snapshot(connected.get(), connecting.get(), handshakesFull.sum(), handshakesResumed.sum(),
                connacks.sum(), lastConnackMillis.get(), startsMissed.sum(), f, published.sum(), publishedQos1.sum(),
                acked.sum(), pings.sum(), dropped.sum(), unexpectedDisconnects.sum(), subscribed.sum(),
                ackLatency.getIntervalHistogram(), connectLatency.getIntervalHistogram());
    }

    /** A point-in-time reading; counters are cumulative, the histograms cover the last interval. */
    public record Snapshot(int connected, int connecting, long handshakesFull, long handshakesResumed, long connacks,
                           long lastConnackMillis, long startsMissed, Map<String, Long> failures, long published,
                           long publishedQos1, long acked, long pings, long dropped, long unexpectedDisconnects,
                           long subscribed, Histogram ackLatency, Histogram connectLatency) {
    }
}
