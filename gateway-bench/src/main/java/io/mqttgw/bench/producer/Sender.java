package io.mqttgw.bench.producer;

import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.spi.UplinkRejectedException;
import io.mqttgw.core.spi.UplinkSink;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * One event loop's share of the devices, sending their field-profile records into the sink at a set rate, as the
 * gateway's PUBLISH handler does: a fresh payload array per record, {@code send} on the loop, the completion handed
 * back to the loop. Every field is read and written on {@link #loop} only; other threads go through
 * {@code loop.submit}.
 */
final class Sender implements Runnable {
    /** Heartbeats per status message: one every 15 s against one every 60 s. */
    static final int STATUS_EVERY = 5;
    /** A loop that fell behind sends at most this much of its backlog at once, then lets the rest go. */
    private static final long MAX_BACKLOG_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    static final long MAX_LATENCY_MICROS = TimeUnit.MINUTES.toMicros(2);
    /** Payloads of each kind the devices share. */
    private static final int PAYLOAD_VARIANTS = 64;

    private final EventLoop loop;
    private final UplinkSink sink;
    private final String[] clientIds;
    private final String[] heartbeatTopics;
    private final String[] statusTopics;
    private final byte[][] heartbeats;
    private final byte[][] statuses;

    private double recordsPerNano;
    private long epochNanos;
    private long issuedSinceEpoch;
    private int cursor;
    private long messages;
    private ScheduledFuture<?> tick;

    private long sent;
    private long acked;
    private long failed;
    private long refused;
    /** Records the loop could not send in time (its backlog beyond {@link #MAX_BACKLOG_NANOS}). */
    private long skipped;
    private final Histogram latency = new Histogram(MAX_LATENCY_MICROS, 3);
    private final Histogram latencySecond = new Histogram(MAX_LATENCY_MICROS, 3);

    /**
     * A sender per loop of {@code loops}: device {@code d} goes to sender {@code d % loops}, as connections spread over
     * event loops; all share the same few payloads of each kind.
     */
    static List<Sender> spread(int devices, MultiThreadIoEventLoopGroup loops, UplinkSink sink) {
        SplittableRandom random = new SplittableRandom(35);
        byte[][] heartbeats = new byte[PAYLOAD_VARIANTS][];
        byte[][] statuses = new byte[PAYLOAD_VARIANTS][];
        for (int i = 0; i < PAYLOAD_VARIANTS; i++) {
            heartbeats[i] = ProducerRate.payload(random, ProducerRate.HEARTBEAT_BYTES);
            statuses[i] = ProducerRate.payload(random, ProducerRate.STATUS_BYTES);
        }
        List<Sender> senders = new ArrayList<>();
        int n = loops.executorCount();
        int d = 0;
        for (EventExecutor executor : loops) {
            int count = devices / n + (d < devices % n ? 1 : 0);
            String[] ids = new String[count];
            String[] heartbeatTopics = new String[count];
            String[] statusTopics = new String[count];
            for (int i = 0; i < count; i++) {
                String id = String.format(Locale.ROOT, "dev-%07d", d + i * n);
                ids[i] = id;
                heartbeatTopics[i] = "devices/" + id + "/heartbeat";
                statusTopics[i] = "devices/" + id + "/status";
            }
            senders.add(new Sender((EventLoop) executor, sink, ids, heartbeatTopics, statusTopics,
                    heartbeats, statuses));
            d++;
        }
        return senders;
    }

    Sender(EventLoop loop, UplinkSink sink, String[] clientIds, String[] heartbeatTopics, String[] statusTopics,
           byte[][] heartbeats, byte[][] statuses) {
        this.loop = loop;
        this.sink = sink;
        this.clientIds = clientIds;
        this.heartbeatTopics = heartbeatTopics;
        this.statusTopics = statusTopics;
        this.heartbeats = heartbeats;
        this.statuses = statuses;
    }

    EventLoop loop() {
        return loop;
    }

    /** Starts sending {@code perSecond} records a second from now (0 stops); on the loop. */
    void rate(double perSecond) {
        recordsPerNano = perSecond / 1e9;
        epochNanos = System.nanoTime();
        issuedSinceEpoch = 0;
        if (tick == null && perSecond > 0) {
            // a 1 ms tick: records go out in small bursts, as reads of many devices on one loop would hand them
            tick = loop.scheduleAtFixedRate(this, 1, 1, TimeUnit.MILLISECONDS);
        } else if (tick != null && perSecond <= 0) {
            tick.cancel(false);
            tick = null;
        }
    }

    @Override
    public void run() {
        long now = System.nanoTime();
        long due = (long) ((now - epochNanos) * recordsPerNano);
        long backlog = (long) (MAX_BACKLOG_NANOS * recordsPerNano);
        if (due - issuedSinceEpoch > backlog + 1) {
            long dropped = due - issuedSinceEpoch - backlog;
            skipped += dropped;
            issuedSinceEpoch += dropped;
        }
        for (; issuedSinceEpoch < due; issuedSinceEpoch++) {
            sendOne();
        }
    }

    private void sendOne() {
        int device = cursor;
        cursor = cursor + 1 == clientIds.length ? 0 : cursor + 1;
        boolean status = messages++ % STATUS_EVERY == STATUS_EVERY - 1;
        byte[][] templates = status ? statuses : heartbeats;
        byte[] template = templates[(int) (messages % templates.length)];
        UplinkMessage message = new UplinkMessage(clientIds[device],
                status ? statusTopics[device] : heartbeatTopics[device], 1, false,
                Arrays.copyOf(template, template.length), System.currentTimeMillis());
        long start = System.nanoTime();
        sent++;
        sink.send(message).whenComplete((ignored, error) -> {
            if (loop.inEventLoop()) {
                completed(start, error);
            } else {
                loop.execute(() -> completed(start, error));
            }
        });
    }

    private void completed(long startNanos, Throwable error) {
        if (error == null) {
            acked++;
            long micros = Math.min(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - startNanos),
                    MAX_LATENCY_MICROS);
            latency.recordValue(micros);
            latencySecond.recordValue(micros);
            return;
        }
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof UplinkRejectedException) {
            refused++;
        } else {
            failed++;
        }
    }

    /** The counters so far; on the loop. */
    Counts counts() {
        return new Counts(sent, acked, failed, refused, skipped);
    }

    /** The acknowledgement latencies since the last call, and a fresh start; on the loop. */
    Histogram takeSecond() {
        Histogram copy = latencySecond.copy();
        latencySecond.reset();
        return copy;
    }

    /** The acknowledgement latencies since the last call, and a fresh start; on the loop. */
    Histogram takeWindow() {
        Histogram copy = latency.copy();
        latency.reset();
        return copy;
    }

    /** Records handed to the sink and what became of them; {@code skipped} were never sent. */
    record Counts(long sent, long acked, long failed, long refused, long skipped) {
        static final Counts ZERO = new Counts(0, 0, 0, 0, 0);

        Counts plus(Counts o) {
            return new Counts(sent + o.sent, acked + o.acked, failed + o.failed, refused + o.refused,
                    skipped + o.skipped);
        }

        Counts minus(Counts o) {
            return new Counts(sent - o.sent, acked - o.acked, failed - o.failed, refused - o.refused,
                    skipped - o.skipped);
        }

        long inFlight() {
            return sent - acked - failed - refused;
        }
    }
}
