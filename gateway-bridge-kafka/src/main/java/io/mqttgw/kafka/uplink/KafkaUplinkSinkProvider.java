package io.mqttgw.kafka.uplink;

import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.mqttgw.core.config.ConfigException;
import io.mqttgw.core.config.ConfigKey;
import io.mqttgw.core.spi.ProviderContext;
import io.mqttgw.core.spi.UplinkSink;
import io.mqttgw.core.spi.UplinkSinkProvider;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.ByteBufferOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code uplink.sink: kafka}. Builds one producer for the node, binds its own metrics into the gateway's registry
 * and warms the metadata of every mapped topic before the listeners open, since with {@code max.block.ms=0} a
 * record for a topic without metadata is refused.
 */
public final class KafkaUplinkSinkProvider implements UplinkSinkProvider {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaUplinkSinkProvider.class);
    /** Named, not imported: the class is in the client's internals. */
    static final String PARTITIONER_LOGGER = "org.apache.kafka.clients.producer.internals.BuiltInPartitioner";

    @Override
    public String name() {
        return "kafka";
    }

    @Override
    public List<ConfigKey<?>> configKeys() {
        return KafkaConfigKeys.ALL;
    }

    @Override
    public List<String> openPrefixes() {
        return List.of(KafkaConfigKeys.PRODUCER);
    }

    @Override
    public UplinkSink create(ProviderContext context) {
        KafkaUplinkSettings settings = KafkaUplinkSettings.from(context.config().values());
        warmUpCompression(settings.compression());
        Producer<byte[], byte[]> producer = new KafkaProducer<>(settings.producerProperties("mqttgw-"
                + context.nodeId()));
        new KafkaClientMetrics(producer).bindTo(context.meters());
        warmUpPartitionerLogger();
        KafkaUplinkSink sink = new KafkaUplinkSink(producer, settings.mapping(), settings.maxPendingBytes(),
                settings.deliveryTimeout(), context.nodeId(), context.meters());
        List<String> missing = warmUp(producer, settings.mapping().kafkaTopics(), settings.warmupTimeout());
        for (String topic : settings.mapping().kafkaTopics()) {
            if (!missing.contains(topic)) {
                sink.knownTopic(topic);
            }
        }
        if (missing.isEmpty()) {
            LOG.info("Kafka uplink ready: {} ({} rules, default topic {}, acks {}, linger {} ms, {})",
                    settings.bootstrapServers(), settings.mapping().rules().size(),
                    settings.mapping().defaultTopic(), settings.acks(),
                    settings.linger().toMillis(), settings.compression());
        } else {
            sink.warmUpFailed("no metadata within " + settings.warmupTimeout().toMillis() + " ms for topics "
                    + missing + " at " + settings.bootstrapServers());
        }
        return sink;
    }

    /**
     * The producer builds a partitioner the first time it appends to a topic, inside {@code send()} on an event
     * loop, and the partitioner asks for its logger: a logger that does not exist yet is created under the logging
     * registry's write lock, which an event loop may then wait for (found by the integration tests' event-loop
     * guard). Created here, at startup, that lookup only reads.
     */
    static void warmUpPartitionerLogger() {
        LoggerFactory.getLogger(PARTITIONER_LOGGER);
    }

    /**
     * Makes the codec ready here, at startup: the first batch otherwise loads it inside {@code send()} on an event
     * loop, and snappy, lz4 and zstd then extract their native library to a temporary file and load it (file reads
     * and writes on the loop, found by the integration tests' event-loop guard). A codec that cannot run here (its
     * native library not built for this platform, or a temporary directory it may not load from) would fail every
     * batch, so it stops startup instead, naming the key.
     */
    static void warmUpCompression(String type) {
        try (OutputStream out = Compression.of(type).build().wrapForOutput(new ByteBufferOutputStream(256),
                RecordBatch.CURRENT_MAGIC_VALUE)) {
            out.write(new byte[64]);
        } catch (IOException | RuntimeException | LinkageError e) {
            throw new ConfigException(KafkaConfigKeys.COMPRESSION.name() + " = '" + type + "' cannot compress on "
                    + "this machine (" + e + "); choose another codec (lz4 and gzip fall back to Java, none needs "
                    + "nothing) or let its native library load (java.io.tmpdir writable and not noexec)", e);
        }
    }

    /**
     * Asks for each topic's partitions until all are known or {@code timeout} passes. With {@code max.block.ms=0}
     * each ask only registers the topic for the next metadata fetch, so this polls. Returns the topics still
     * missing.
     */
    static List<String> warmUp(Producer<byte[], byte[]> producer, Set<String> topics, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> missing = new ArrayList<>(topics);
        while (true) {
            missing.removeIf(topic -> {
                try {
                    return !producer.partitionsFor(topic).isEmpty();
                } catch (TimeoutException e) {
                    return false;
                }
            });
            if (missing.isEmpty() || System.nanoTime() >= deadline) {
                return missing;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return missing;
            }
        }
    }
}
