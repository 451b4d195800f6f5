package io.mqttgw.core.metrics;

import com.sun.management.UnixOperatingSystemMXBean;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmHeapPressureMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Meters of the process rather than of MQTT: JVM memory, GC, threads, CPU, file descriptors, resident set size,
 * Netty direct memory and allocator usage, and each event loop's pending tasks (the first sign of an overloaded
 * loop). All are read at scrape time on the admin thread.
 */
public final class NodeMeters implements AutoCloseable {
    private static final Path STATM = Path.of("/proc/self/statm");
    private static final long PAGE = 4096;

    private final JvmGcMetrics gc = new JvmGcMetrics();
    private final JvmHeapPressureMetrics heapPressure = new JvmHeapPressureMetrics();

    public NodeMeters(MeterRegistry registry, ByteBufAllocator allocator, EventLoopGroup ioGroup) {
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        heapPressure.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        fileDescriptors(registry);
        if (Files.isReadable(STATM)) {
            Gauge.builder("mqttgw.process.resident.memory", NodeMeters::residentBytes).baseUnit("bytes")
                    .description("Resident set size of the process (heap, direct, native TLS, metaspace, stacks)")
                    .register(registry);
        }
        Gauge.builder("mqttgw.netty.direct.memory.used", PlatformDependent::usedDirectMemory).baseUnit("bytes")
                .description("Direct memory Netty accounts for (-1 when it cannot track it)").register(registry);
        if (allocator instanceof ByteBufAllocatorMetricProvider p) {
            Gauge.builder("mqttgw.allocator.used", p, x -> x.metric().usedDirectMemory()).tag("memory", "direct")
                    .baseUnit("bytes").description("Memory held by the buffer allocator").register(registry);
            Gauge.builder("mqttgw.allocator.used", p, x -> x.metric().usedHeapMemory()).tag("memory", "heap")
                    .baseUnit("bytes").description("Memory held by the buffer allocator").register(registry);
        }
        int i = 0;
        for (EventExecutor loop : ioGroup) {
            if (loop instanceof SingleThreadEventExecutor s) {
                Gauge.builder("mqttgw.eventloop.pending.tasks", s, SingleThreadEventExecutor::pendingTasks)
                        .tag("loop", Integer.toString(i)).description("Tasks queued on an I/O event loop")
                        .register(registry);
            }
            i++;
        }
    }

    /**
     * Micrometer's {@code process.files.open} and {@code process.files.max} under their usual names, except that the
     * open count is refreshed at most every {@link OpenFileCount#REFRESH}: counting lists every descriptor.
     */
    @io.mqttgw.core.SuppressForbidden(reason = "the open and maximum descriptor counts exist only on this MXBean")
    private static void fileDescriptors(MeterRegistry registry) {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (!(os instanceof UnixOperatingSystemMXBean unix)) {
            return;
        }
        OpenFileCount open = new OpenFileCount(unix::getOpenFileDescriptorCount, System::nanoTime,
                OpenFileCount.REFRESH);
        // strongly: Micrometer keeps a gauge's object weakly, and nothing else holds this one
        Gauge.builder("process.files.open", open, OpenFileCount::value).strongReference(true).baseUnit("files")
                .description("The open file descriptor count (counted at most every "
                        + OpenFileCount.REFRESH.toSeconds() + " s)")
                .register(registry);
        Gauge.builder("process.files.max", unix, UnixOperatingSystemMXBean::getMaxFileDescriptorCount).baseUnit("files")
                .description("The maximum file descriptor count").register(registry);
    }

    private static double residentBytes() {
        try {
            String[] fields = Files.readString(STATM).trim().split("\\s+");
            return Long.parseLong(fields[1]) * PAGE;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    @Override
    public void close() {
        gc.close();
        heapPressure.close();
    }
}
