package io.mqttgw.bench.producer;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.spi.UplinkSink;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.HdrHistogram.Histogram;

/**
 * Measures {@link ProducerRate}'s windows: sets the senders' rate, reads their counters and latencies on their own
 * loops, CPU from {@code /proc} (the producer's network thread, the process, the broker) and the JVM (the sending
 * loops), and the producer's metrics from the sink's meters, and turns one window's difference into a row.
 *
 * <p>Used by the thread that runs the tool; what belongs to a sender is read on that sender's event loop.
 */
final class RateWindows {
    private final ProcCpu proc;
    private final ThreadMXBean threads;
    private final long[] loopThreads;
    private final long brokerPid;
    private final List<Sender> senders;
    private final UplinkSink sink;
    private final SimpleMeterRegistry meters;

    RateWindows(ProcCpu proc, ThreadMXBean threads, long[] loopThreads, long brokerPid, List<Sender> senders,
                UplinkSink sink, SimpleMeterRegistry meters) {
        this.proc = proc;
        this.threads = threads;
        this.loopThreads = loopThreads;
        this.brokerPid = brokerPid;
        this.senders = senders;
        this.sink = sink;
        this.meters = meters;
    }

    /** CPU figures in ns so far, -1 where not measured; bytes the producer sent to the broker so far, or NaN. */
    record Sample(long nanos, Sender.Counts counts, long netThread, long loops, long process, long broker,
                  double wireBytes) {
    }

    Sample sample() throws ExecutionException, InterruptedException, TimeoutException {
        Sender.Counts counts = counts();
        long loops = 0;
        for (long id : loopThreads) {
            long t = threads.getThreadCpuTime(id);
            loops = t < 0 || loops < 0 ? -1 : loops + t;
        }
        return new Sample(System.nanoTime(), counts,
                proc == null ? -1 : proc.threads(ProducerRate.NETWORK_THREAD), loops, proc == null ? -1 : proc.self(),
                proc == null || brokerPid <= 0 ? -1 : proc.process(brokerPid), producerMetric("outgoing.byte.total"));
    }

    Sender.Counts counts() throws ExecutionException, InterruptedException, TimeoutException {
        Sender.Counts sum = Sender.Counts.ZERO;
        for (Sender s : senders) {
            sum = sum.plus(s.loop().submit(s::counts).get(10, TimeUnit.SECONDS));
        }
        return sum;
    }

    Histogram takeSecondLatency() throws ExecutionException, InterruptedException, TimeoutException {
        Histogram h = new Histogram(Sender.MAX_LATENCY_MICROS, 3);
        for (Sender s : senders) {
            h.add(s.loop().submit(s::takeSecond).get(10, TimeUnit.SECONDS));
        }
        return h;
    }

    Histogram takeWindowLatency() throws ExecutionException, InterruptedException, TimeoutException {
        Histogram h = new Histogram(Sender.MAX_LATENCY_MICROS, 3);
        for (Sender s : senders) {
            h.add(s.loop().submit(s::takeWindow).get(10, TimeUnit.SECONDS));
        }
        return h;
    }

    /**
     * A producer-wide metric as the sink's Kafka client metrics publish it ({@code kafka.producer.<name>}: a gauge,
     * or a function counter for the running totals); NaN when the producer has not published it (yet).
     */
    double producerMetric(String name) {
        for (Meter m : meters.getMeters()) {
            String id = m.getId().getName();
            if (!id.equals("kafka.producer." + name)) {
                continue;
            }
            if (m instanceof Gauge g) {
                return g.value();
            }
            if (m instanceof FunctionCounter c) {
                return c.count();
            }
        }
        return Double.NaN;
    }

    /**
     * Sets the senders to {@code rate} records a second (shared evenly), waits out the warm-up, then measures one
     * window; a line a second to {@code out} meanwhile and the row at its end.
     */
    ProducerRate.Row measure(ProducerRate.Options options, int rate, PrintStream out) throws Exception {
        for (int i = 0; i < senders.size(); i++) {
            Sender s = senders.get(i);
            double share = (double) rate / senders.size();
            s.loop().submit(() -> s.rate(share)).get();
        }
        String label = String.format(Locale.ROOT, "[%6d/s]", rate);
        long warmupEnd = System.nanoTime() + options.warmup().toNanos();
        live(label + " warm-up", warmupEnd, sample(), out);
        takeWindowLatency();
        Sample start = sample();
        String load0 = load1();
        long windowEnd = start.nanos + options.window().toNanos();
        Sample end = live(label + " window ", windowEnd, start, out);
        Histogram latency = takeWindowLatency();
        double batch = producerMetric("batch.size.avg");
        double perRequest = producerMetric("records.per.request.avg");
        double compression = producerMetric("compression.rate.avg");
        String load = load0 + "/" + load1();
        Sender.Counts c = end.counts.minus(start.counts);
        double seconds = (end.nanos - start.nanos) / 1e9;
        double acked = c.acked();
        ProducerRate.Row row = new ProducerRate.Row(options.round(), rate, acked / seconds, seconds, c,
                perRecord(end.netThread, start.netThread, acked), cores(end.netThread, start.netThread, seconds),
                perRecord(end.loops, start.loops, acked), perRecord(end.process, start.process, acked),
                perRecord(end.broker, start.broker, acked), batch, perRequest,
                acked > 0 ? (end.wireBytes - start.wireBytes) / acked : Double.NaN, compression,
                latency.getValueAtPercentile(50) / 1e3, latency.getValueAtPercentile(99) / 1e3,
                latency.getMaxValue() / 1e3, load);
        out.printf(Locale.ROOT, "%s result: %.0f records/s acknowledged; CPU per record: network thread %.2f µs "
                + "(%.2f cores), senders %.2f µs, process %.2f µs, broker %.2f µs; batch %.0f B, %.2f records per "
                + "request, %.1f B per record to the broker (compression rate %.3f); ack p50 %.2f ms, p99 %.2f ms; "
                + "refused %d, failed %d, not sent in time %d%n", label, row.achieved(), row.netThreadMicros(),
                row.netThreadCores(), row.sendersMicros(), row.processMicros(), row.brokerMicros(), batch, perRequest,
                row.wireBytesPerRecord(), compression, row.p50Millis(), row.p99Millis(), c.refused(), c.failed(),
                c.skipped());
        return row;
    }

    /** A line a second until {@code until}; returns the last sample, taken at {@code until}. */
    private Sample live(String label, long until, Sample from, PrintStream out)
            throws Exception {
        Sample last = from;
        while (true) {
            long now = System.nanoTime();
            long next = Math.min(until, last.nanos + TimeUnit.SECONDS.toNanos(1));
            if (next > now) {
                TimeUnit.NANOSECONDS.sleep(next - now);
            }
            Sample s = sample();
            Histogram second = takeSecondLatency();
            double seconds = (s.nanos - last.nanos) / 1e9;
            Sender.Counts c = s.counts.minus(last.counts);
            out.printf(Locale.ROOT, "%s sent %7.0f/s acked %7.0f/s refused %d failed %d | network thread %.2f cores "
                    + "| ack p50 %.2f p99 %.2f ms | pending %.1f %%%n", label, c.sent() / seconds,
                    c.acked() / seconds, c.refused(), c.failed(), cores(s.netThread, last.netThread, seconds),
                    second.getValueAtPercentile(50) / 1e3, second.getValueAtPercentile(99) / 1e3,
                    sink.pressure() * 100);
            last = s;
            if (s.nanos >= until) {
                return s;
            }
        }
    }

    /** Waits until no record is in flight, or {@code timeout}; answers the counts then. */
    Sender.Counts drain(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Sender.Counts c = counts();
            if (c.inFlight() == 0 || System.nanoTime() > deadline) {
                return c;
            }
            Thread.sleep(50);
        }
    }

    private static double perRecord(long endNanos, long startNanos, double records) {
        return endNanos < 0 || startNanos < 0 || records <= 0 ? Double.NaN : (endNanos - startNanos) / 1e3 / records;
    }

    private static double cores(long endNanos, long startNanos, double seconds) {
        return endNanos < 0 || startNanos < 0 ? Double.NaN : (endNanos - startNanos) / 1e9 / seconds;
    }

    private static String load1() {
        try {
            return Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).split(" ")[0];
        } catch (IOException e) {
            return "";
        }
    }
}
