package io.mqttgw.bench.producer;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.bench.NodeWithoutListeners;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.spi.HealthStatus;
import io.mqttgw.core.spi.ProviderContext;
import io.mqttgw.core.spi.Providers;
import io.mqttgw.core.spi.UplinkSink;
import io.mqttgw.kafka.uplink.KafkaUplinkSettings;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * The gateway's Kafka uplink sink at fixed record rates, without devices or TLS: what the producer costs per record
 * when its batches fill as they would at a node's full rate. The sink is the one a node runs ({@code uplink.sink:
 * kafka} built by its provider from the shipped defaults: acks all with idempotence, linger, snappy), fed by
 * {@code --senders} Netty event loops that build each record as the PUBLISH handler does and take its completion
 * back. The records follow the field profile: per device a 20 B heartbeat every 15 s and a 500 B status every 60 s
 * (one status per four heartbeats), each kind on its own topic ({@code <prefix>heartbeat}, {@code <prefix>status},
 * created with {@code --partitions} partitions if missing), keyed by one of {@code --devices} device ids.
 *
 * <pre>
 * java -cp 'gateway-bench/target/bench/lib/*' io.mqttgw.bench.producer.ProducerRate --bootstrap 127.0.0.1:9092 \
 *   --broker-pid 1234 --rates 5000,20000,50000,80000 --warmup 10s --window 30s --out DIR [--round 1] \
 *   [--senders 2] [--devices 100000] [--partitions 12] [--topic-prefix device.] [--set uplink.kafka.linger=5ms]
 * </pre>
 * Per rate, after the warm-up: records acknowledged per second over the window; CPU per acknowledged record of the
 * producer's network thread and of the process ({@code /proc/self}), of the sending loops (thread CPU time) and of
 * the broker ({@code /proc/<broker-pid>}); the producer's {@code batch-size-avg}, {@code records-per-request-avg} and
 * {@code compression-rate-avg} (compressed over uncompressed batch size) at the window's end (its metrics sample over
 * half a window, so two samples span about the window); the bytes it sent to the broker per acknowledged record (its
 * {@code outgoing-byte-total} over the window: records, headers, batch and request framing, after compression); and the
 * acknowledgement latency (send to completion back on the loop) p50, p99 and max. A line a second while it runs;
 * the rows are appended to {@code DIR/results.csv} and {@code DIR/results.md}.
 */
public final class ProducerRate {
    static final String NETWORK_THREAD = "kafka-producer-network-thread";
    static final String LOOP_THREAD = "producer-rate-loop";
    static final int HEARTBEAT_BYTES = 20;
    static final int STATUS_BYTES = 500;
    static final List<String> COLUMNS = List.of("round", "target_per_s", "achieved_per_s", "window_s", "acked",
            "refused", "failed", "skipped", "net_thread_us_per_record", "net_thread_cores", "senders_us_per_record",
            "process_us_per_record", "broker_us_per_record", "batch_size_avg_bytes", "records_per_request_avg",
            "wire_bytes_per_record", "compression_rate_avg", "ack_p50_ms", "ack_p99_ms", "ack_max_ms", "load1");

    private ProducerRate() {
    }

    /**
     * What to run.
     *
     * @param brokerPid  the broker's process, for its CPU; 0 when not known (its column stays empty)
     * @param settings   gateway config keys over the shipped defaults ({@code uplink.kafka.linger} and so on)
     */
    record Options(String bootstrap, long brokerPid, List<Integer> rates, int senders, int devices, Duration warmup,
                   Duration window, int partitions, String topicPrefix, Path out, String round,
                   Map<String, String> settings) {
        String heartbeatTopic() {
            return topicPrefix + "heartbeat";
        }

        String statusTopic() {
            return topicPrefix + "status";
        }

        String defaultTopic() {
            return topicPrefix + "uplink";
        }

        static Options parse(String[] args) {
            Map<String, String> o = new LinkedHashMap<>();
            Map<String, String> settings = new LinkedHashMap<>();
            for (int i = 0; i < args.length; i++) {
                if (!args[i].startsWith("--") || i + 1 >= args.length) {
                    throw new IllegalArgumentException("expected --name value at '" + args[i] + "'");
                }
                String name = args[i].substring(2);
                String value = args[++i];
                if (name.equals("set")) {
                    int eq = value.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("--set wants key=value, not '" + value + "'");
                    }
                    settings.put(value.substring(0, eq), value.substring(eq + 1));
                } else {
                    o.put(name, value);
                }
            }
            String bootstrap = o.remove("bootstrap");
            if (bootstrap == null) {
                throw new IllegalArgumentException("--bootstrap host:port is required");
            }
            List<Integer> rates = new ArrayList<>();
            for (String r : o.getOrDefault("rates", "5000,20000,50000,80000").split(",")) {
                rates.add(Integer.parseInt(r.trim()));
            }
            o.remove("rates");
            Options options = new Options(bootstrap, Long.parseLong(o.getOrDefault("broker-pid", "0")), rates,
                    Integer.parseInt(o.getOrDefault("senders", "2")),
                    Integer.parseInt(o.getOrDefault("devices", "100000")),
                    duration(o.getOrDefault("warmup", "10s")), duration(o.getOrDefault("window", "30s")),
                    Integer.parseInt(o.getOrDefault("partitions", "12")), o.getOrDefault("topic-prefix", "device."),
                    Path.of(o.getOrDefault("out", "bench-results/producer-rate")), o.getOrDefault("round", "1"),
                    settings);
            for (String known : List.of("broker-pid", "senders", "devices", "warmup", "window", "partitions",
                    "topic-prefix", "out", "round")) {
                o.remove(known);
            }
            if (!o.isEmpty()) {
                throw new IllegalArgumentException("unknown options " + o.keySet());
            }
            if (options.senders < 1 || options.devices < options.senders || options.rates.isEmpty()) {
                throw new IllegalArgumentException("needs at least one sender, a device per sender and a rate");
            }
            return options;
        }

        static Duration duration(String text) {
            String t = text.trim();
            if (t.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            }
            if (t.endsWith("m")) {
                return Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
            }
            return Duration.ofSeconds(Long.parseLong(t.endsWith("s") ? t.substring(0, t.length() - 1) : t));
        }
    }

    /**
     * One rate's measured window. CPU figures are per acknowledged record, in µs; NaN where not measured (no
     * {@code /proc}, no broker pid).
     */
    record Row(String round, int target, double achieved, double windowSeconds, Sender.Counts counts,
               double netThreadMicros, double netThreadCores, double sendersMicros, double processMicros,
               double brokerMicros, double batchSizeAvg, double recordsPerRequestAvg, double wireBytesPerRecord,
               double compressionRateAvg, double p50Millis, double p99Millis, double maxMillis, String load) {
        List<String> cells() {
            return List.of(round, Integer.toString(target), fmt(achieved, 1), fmt(windowSeconds, 2),
                    Long.toString(counts.acked()), Long.toString(counts.refused()), Long.toString(counts.failed()),
                    Long.toString(counts.skipped()), fmt(netThreadMicros, 2), fmt(netThreadCores, 3),
                    fmt(sendersMicros, 2), fmt(processMicros, 2), fmt(brokerMicros, 2), fmt(batchSizeAvg, 0),
                    fmt(recordsPerRequestAvg, 2), fmt(wireBytesPerRecord, 1), fmt(compressionRateAvg, 3),
                    fmt(p50Millis, 2), fmt(p99Millis, 2), fmt(maxMillis, 2), load);
        }
    }

    /** The rows, and what became of every record sent over the whole run (none in flight at its end). */
    record Result(List<Row> rows, Sender.Counts totals) {
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("producer-rate: " + e.getMessage());
            System.exit(2);
            return;
        }
        Result result = run(options, System.out);
        Sender.Counts t = result.totals();
        // a record neither acknowledged nor refused nor failed would make every figure above suspect
        System.exit(t.inFlight() == 0 && t.failed() == 0 ? 0 : 1);
    }

    static Result run(Options options, PrintStream out) throws Exception {
        createTopics(options);
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        Providers providers = Providers.discover();
        GatewayConfig config = Gateway.configure(null, providers, Map.of(), gatewayProperties(options));
        UplinkSink sink = providers.uplinkSink("kafka").create(new ProviderContext(config, meters));
        HealthStatus health = sink.health();
        if (!health.up()) {
            sink.close();
            throw new IllegalStateException("the Kafka sink did not start: " + health.detail());
        }
        IoHandlerFactory io = Epoll.isAvailable() ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        MultiThreadIoEventLoopGroup loops = new MultiThreadIoEventLoopGroup(options.senders(),
                new DefaultThreadFactory(LOOP_THREAD, true), io);
        try {
            List<Sender> senders = Sender.spread(options.devices(), loops, sink);
            long[] loopThreads = new long[senders.size()];
            for (int i = 0; i < senders.size(); i++) {
                loopThreads[i] = senders.get(i).loop().submit(() -> Thread.currentThread().getId()).get();
            }
            RateWindows windows = new RateWindows(ProcCpu.open(), ManagementFactory.getThreadMXBean(), loopThreads,
                    options.brokerPid(), senders, sink, meters);
            out.printf(Locale.ROOT, "producer-rate: %s, %d senders (%s), %d devices, topics %s and %s (%d "
                    + "partitions), warm-up %d s, window %d s, settings %s%n", options.bootstrap(), options.senders(),
                    Epoll.isAvailable() ? "epoll" : "nio", options.devices(), options.heartbeatTopic(),
                    options.statusTopic(), options.partitions(), options.warmup().toSeconds(),
                    options.window().toSeconds(), producerSettings(config));
            List<Row> rows = new ArrayList<>();
            for (int rate : options.rates()) {
                rows.add(windows.measure(options, rate, out));
            }
            for (Sender s : senders) {
                s.loop().submit(() -> s.rate(0)).get();
            }
            Sender.Counts totals = windows.drain(Duration.ofSeconds(60));
            out.printf(Locale.ROOT, "totals: sent %d, acknowledged %d, refused %d, failed %d, in flight %d, "
                    + "not sent in time %d%n", totals.sent(), totals.acked(), totals.refused(), totals.failed(),
                    totals.inFlight(), totals.skipped());
            write(options.out(), rows);
            return new Result(rows, totals);
        } finally {
            sink.close().toCompletableFuture().get(60, TimeUnit.SECONDS);
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** The shipped defaults, with only what this run needs set: the broker, the topics, and the options' keys. */
    static Properties gatewayProperties(Options options) {
        Properties p = NodeWithoutListeners.properties("producer-rate");
        p.setProperty("mqttgw.uplink.sink", "kafka");
        p.setProperty("mqttgw.uplink.kafka.bootstrap-servers", options.bootstrap());
        p.setProperty("mqttgw.uplink.kafka.default-topic", options.defaultTopic());
        p.setProperty("mqttgw.uplink.kafka.topic-rules", "devices/{id}/heartbeat=" + options.heartbeatTopic()
                + ",devices/+/status=" + options.statusTopic());
        // the producer's averages then span about one window (two samples of half a window each), not the
        // default 30-60 s that would mix in the previous rate; only its metrics change
        p.setProperty("mqttgw.uplink.kafka.producer.metrics.sample.window.ms",
                Long.toString(Math.max(1000, options.window().toMillis() / 2)));
        options.settings().forEach((k, v) -> p.setProperty("mqttgw." + k, v));
        return p;
    }

    private static String producerSettings(GatewayConfig config) {
        KafkaUplinkSettings s = KafkaUplinkSettings.from(config.values());
        return String.format(Locale.ROOT, "acks %s, linger %d ms, batch-size %d, compression %s, "
                + "max-pending-bytes %d", s.acks(), s.linger().toMillis(), s.batchSize(), s.compression(),
                s.maxPendingBytes());
    }

    private static void createTopics(Options options) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrap(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000))) {
            for (String topic : List.of(options.heartbeatTopic(), options.statusTopic(), options.defaultTopic())) {
                try {
                    admin.createTopics(List.of(new NewTopic(topic, options.partitions(), (short) 1))).all()
                            .get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
        }
    }

    /**
     * JSON-like text of exactly {@code size} bytes with varying figures: compressed about as a device's readings
     * are, not as random bytes (which do not compress) nor as one repeated array (which compresses too well).
     */
    static byte[] payload(SplittableRandom random, int size) {
        StringBuilder s = new StringBuilder(size + 32).append('{');
        int field = 0;
        while (s.length() < size) {
            s.append('"').append((char) ('a' + field % 26)).append(field / 26).append("\":")
                    .append(random.nextInt(100_000)).append(',');
            field++;
        }
        s.setLength(size - 1);
        s.append('}');
        return s.toString().getBytes(StandardCharsets.US_ASCII);
    }

    static String fmt(double v, int decimals) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    /** Appends the rows to {@code dir/results.csv} and {@code dir/results.md}, each with its header when new. */
    static void write(Path dir, List<Row> rows) throws IOException {
        Files.createDirectories(dir);
        Path csv = dir.resolve("results.csv");
        Path md = dir.resolve("results.md");
        StringBuilder c = new StringBuilder();
        StringBuilder m = new StringBuilder();
        if (!Files.exists(csv)) {
            c.append(String.join(",", COLUMNS)).append('\n');
        }
        if (!Files.exists(md)) {
            m.append("| ").append(String.join(" | ", COLUMNS)).append(" |\n|");
            m.append(" --- |".repeat(COLUMNS.size())).append('\n');
        }
        for (Row r : rows) {
            c.append(String.join(",", r.cells())).append('\n');
            m.append("| ").append(String.join(" | ", r.cells())).append(" |\n");
        }
        Files.writeString(csv, c, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        Files.writeString(md, m, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
