package io.mqttgw.core.overload;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.admission.AdmissionControl;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.config.OverloadThreshold;
import io.mqttgw.core.spi.OverloadListener;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.PlatformDependent;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples the node on its own thread ({@code overload-monitor}) every {@code overload.interval}: event-loop lag (how
 * long a probe task waits on each I/O loop), heap occupancy after the last GC, direct memory, TLS handshakes in
 * progress and started per second, and how full the uplink sink's and route store's bounds are. Two
 * {@link OverloadDetector}s turn the samples into levels. Busy: event-loop lag and handshake rate (unless
 * {@code overload.lag-reaction: overload}); the node's own admitted handshakes cause most of that lag, so the only
 * reaction is to admit fewer handshakes at once, the rest waiting in the listen backlog
 * ({@link AdmissionControl#busy}), until it passes.
 * Overloaded: heap after GC, direct memory and queue pressure, which admitting less does not cure quickly;
 * uplink pressure only when {@code overload.uplink-pressure} is set (off by default): a full sink already pauses
 * reading of the connections that publish, which bounds memory at one held message each, and a sink full because
 * Kafka is away is full on every node alike, so closing listeners would move no load and only start a reconnect
 * storm; its gauge stays, as does the sink's health;
 * listeners hear of every change (they close the listening ports, refuse CONNECTs). Each sample is a gauge
 * ({@code mqttgw_overload_signal{signal}}); the levels are {@code mqttgw_overload_level} and
 * {@code mqttgw_admission_busy}, their changes {@code mqttgw_overload_transitions_total} and
 * {@code mqttgw_admission_busy_transitions_total}.
 */
public final class OverloadMonitor implements AutoCloseable {
    public static final String EVENT_LOOP_LAG = OverloadThreshold.EVENT_LOOP_LAG;
    public static final String HEAP_AFTER_GC = OverloadThreshold.HEAP_AFTER_GC;
    public static final String DIRECT_MEMORY = OverloadThreshold.DIRECT_MEMORY;
    public static final String HANDSHAKES = "handshakes_in_progress";
    public static final String HANDSHAKE_RATE = OverloadThreshold.HANDSHAKE_RATE;
    public static final String UPLINK_PRESSURE = OverloadThreshold.UPLINK_PRESSURE;
    public static final String ROUTES_PRESSURE = OverloadThreshold.ROUTES_PRESSURE;

    private static final Logger LOG = LoggerFactory.getLogger(OverloadMonitor.class);

    private final GatewayConfig.Overload config;
    private final EventExecutor[] loops;
    private final AtomicLongArray probeSubmittedAt;
    private final AtomicLongArray probeLag;
    private final AdmissionControl admission;
    private final DoubleSupplier uplinkPressure;
    private final DoubleSupplier routesPressure;
    private final List<OverloadListener> listeners;
    private final OverloadDetector detector;
    private final OverloadDetector busyDetector;
    private final Map<String, Double> last = new ConcurrentHashMap<>();
    private final List<MemoryPoolMXBean> oldGenerations = new ArrayList<>();
    private final Counter transitions;
    private final Counter busyTransitions;
    private final ScheduledExecutorService thread;
    private long lastHandshakes;
    private long lastSampleNanos;
    /** Thresholds a reload set, taken up by the next sample on the monitor thread; null when none is waiting. */
    private final java.util.concurrent.atomic.AtomicReference<List<OverloadThreshold>> retuned =
            new java.util.concurrent.atomic.AtomicReference<>();

    public OverloadMonitor(GatewayConfig.Overload config, EventLoopGroup ioGroup, AdmissionControl admission,
                           DoubleSupplier uplinkPressure, DoubleSupplier routesPressure,
                           List<OverloadListener> listeners, MeterRegistry meters) {
        this.config = config;
        List<EventExecutor> executors = new ArrayList<>();
        ioGroup.forEach(executors::add);
        this.loops = executors.toArray(EventExecutor[]::new);
        this.probeSubmittedAt = new AtomicLongArray(loops.length);
        this.probeLag = new AtomicLongArray(loops.length);
        this.admission = admission;
        this.uplinkPressure = uplinkPressure;
        this.routesPressure = routesPressure;
        this.listeners = List.copyOf(listeners);
        List<OverloadThreshold> overloadSignals = new ArrayList<>();
        List<OverloadThreshold> busySignals = new ArrayList<>();
        for (OverloadThreshold t : config.thresholds()) {
            boolean busySignal = t.signal().equals(EVENT_LOOP_LAG) || t.signal().equals(HANDSHAKE_RATE);
            (busySignal && !config.lagIsOverload() ? busySignals : overloadSignals).add(t);
        }
        this.detector = new OverloadDetector(overloadSignals, config.recoveryHold().toNanos(),
                config.minHold().toNanos());
        // busy only shrinks admission, so it may end sooner than overload: once below the exit threshold for
        // min-hold
        this.busyDetector = new OverloadDetector(busySignals, config.minHold().toNanos(), config.minHold().toNanos());
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            // the pool that holds what survives: after a GC, its occupancy is the live set
            if (pool.getType() == MemoryType.HEAP && pool.isCollectionUsageThresholdSupported()
                    && (pool.getName().contains("Old") || pool.getName().contains("Tenured"))) {
                oldGenerations.add(pool);
            }
        }
        for (String signal : List.of(EVENT_LOOP_LAG, HEAP_AFTER_GC, DIRECT_MEMORY, HANDSHAKES, HANDSHAKE_RATE,
                UPLINK_PRESSURE, ROUTES_PRESSURE)) {
            last.put(signal, Double.NaN);
            Gauge.builder("mqttgw.overload.signal", last, m -> m.getOrDefault(signal, Double.NaN))
                    .tag("signal", signal).description("The overload monitor's last sample of each signal")
                    .register(meters);
        }
        Gauge.builder("mqttgw.overload.level", detector, d -> d.overloaded() ? 1 : 0)
                .description("1 while the node is overloaded").register(meters);
        this.transitions = Counter.builder("mqttgw.overload.transitions")
                .description("Times the node entered or left overload").register(meters);
        Gauge.builder("mqttgw.admission.busy", busyDetector, d -> d.overloaded() ? 1 : 0)
                .description("1 while event-loop lag shrinks the handshake budget").register(meters);
        this.busyTransitions = Counter.builder("mqttgw.admission.busy.transitions")
                .description("Times the node became busy or stopped being busy").register(meters);
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "overload-monitor");
            t.setDaemon(true);
            return t;
        });
        this.lastSampleNanos = System.nanoTime();
        this.lastHandshakes = admission.handshakesStarted();
    }

    public void start() {
        long ms = config.interval().toMillis();
        thread.scheduleAtFixedRate(this::sampleSafely, ms, ms, TimeUnit.MILLISECONDS);
    }

    private void sampleSafely() {
        try {
            sample();
        } catch (RuntimeException e) {
            LOG.warn("overload sample failed", e);
        }
    }

    /**
     * New thresholds (overload.* enter and exit values) from a reload; the monitor thread applies them before its
     * next sample. Which signals are overload and which only make the node busy (overload.lag-reaction) stays as
     * started. Any thread.
     */
    public void retune(List<OverloadThreshold> thresholds) {
        retuned.set(List.copyOf(thresholds));
    }

    void sample() {
        List<OverloadThreshold> next = retuned.getAndSet(null);
        if (next != null) {
            detector.retune(next);
            busyDetector.retune(next);
            LOG.info("overload thresholds now {}", next);
        }
        long now = System.nanoTime();
        Map<String, Double> samples = new LinkedHashMap<>();
        samples.put(EVENT_LOOP_LAG, eventLoopLagNanos(now) / 1e9);
        samples.put(HEAP_AFTER_GC, heapAfterGc());
        long usedDirect = PlatformDependent.usedDirectMemory();
        samples.put(DIRECT_MEMORY,
                usedDirect < 0 ? Double.NaN : (double) usedDirect / PlatformDependent.maxDirectMemory());
        samples.put(HANDSHAKES, (double) admission.handshakesInProgress());
        long started = admission.handshakesStarted();
        double seconds = Math.max(1e-3, (now - lastSampleNanos) / 1e9);
        samples.put(HANDSHAKE_RATE, (started - lastHandshakes) / seconds);
        lastHandshakes = started;
        lastSampleNanos = now;
        samples.put(UPLINK_PRESSURE, uplinkPressure.getAsDouble());
        samples.put(ROUTES_PRESSURE, routesPressure.getAsDouble());
        last.putAll(samples);
        if (busyDetector.update(samples, now)) {
            busyTransitions.increment();
            admission.busy(busyDetector.overloaded());
            if (busyDetector.overloaded()) {
                LOG.info("node busy ({}): a quarter of the handshake budget, the rest waits in the listen backlog: {}",
                        String.join(", ", busyDetector.signalsOver()), samples);
            } else {
                LOG.info("node no longer busy: {}", samples);
            }
        }
        if (detector.update(samples, now)) {
            transitions.increment();
            boolean overloaded = detector.overloaded();
            List<String> over = detector.signalsOver();
            if (overloaded) {
                LOG.warn("node overloaded ({}): {}", String.join(", ", over), samples);
            } else {
                LOG.warn("node recovered from overload: {}", samples);
            }
            for (OverloadListener listener : listeners) {
                try {
                    listener.onOverloadChange(overloaded, over, Map.copyOf(samples));
                } catch (RuntimeException e) {
                    LOG.warn("overload listener {} failed", listener.getClass().getName(), e);
                }
            }
        }
    }

    /** The longest a probe task has waited on any I/O loop: a finished probe's wait, or a pending one's so far. */
    private long eventLoopLagNanos(long now) {
        long worst = 0;
        for (int i = 0; i < loops.length; i++) {
            long submitted = probeSubmittedAt.get(i);
            if (submitted != 0) {
                worst = Math.max(worst, now - submitted);
                continue;
            }
            worst = Math.max(worst, probeLag.get(i));
            int loop = i;
            probeSubmittedAt.set(i, now);
            loops[i].execute(() -> {
                probeLag.set(loop, System.nanoTime() - probeSubmittedAt.get(loop));
                probeSubmittedAt.set(loop, 0);
            });
        }
        return worst;
    }

    private double heapAfterGc() {
        double worst = Double.NaN;
        for (MemoryPoolMXBean pool : oldGenerations) {
            MemoryUsage usage = pool.getCollectionUsage();
            if (usage == null) {
                continue;
            }
            long max = usage.getMax() > 0 ? usage.getMax() : Runtime.getRuntime().maxMemory();
            double ratio = (double) usage.getUsed() / max;
            worst = Double.isNaN(worst) ? ratio : Math.max(worst, ratio);
        }
        return worst;
    }

    public boolean overloaded() {
        return detector.overloaded();
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
