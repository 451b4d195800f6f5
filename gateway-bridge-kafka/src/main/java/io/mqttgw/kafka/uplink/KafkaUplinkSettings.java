package io.mqttgw.kafka.uplink;

import static io.mqttgw.kafka.uplink.KafkaConfigKeys.*;

import io.mqttgw.core.config.ConfigException;
import io.mqttgw.core.config.ConfigValues;
import io.mqttgw.kafka.mapping.TopicMapping;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The validated settings of the Kafka uplink and the producer properties they make.
 *
 * @param passThrough producer properties given under {@code uplink.kafka.producer.}, applied before the
 *                    gateway's own, so the few the gateway must own ({@code max.block.ms}, serializers) win
 */
public record KafkaUplinkSettings(String bootstrapServers, String acks, Duration linger, long batchSize,
                                  String compression, long bufferMemory, long maxPendingBytes,
                                  Duration requestTimeout, Duration deliveryTimeout, TopicMapping mapping,
                                  Duration warmupTimeout, Map<String, String> passThrough) {

    public static KafkaUplinkSettings from(ConfigValues v) {
        if (v.find(BOOTSTRAP).isEmpty()) {
            throw new ConfigException(BOOTSTRAP.name() + " is required while uplink.sink is kafka: set it ("
                    + BOOTSTRAP.allowed() + ") as " + BOOTSTRAP.environmentVariable() + " or in the file");
        }
        long buffer = v.get(BUFFER_MEMORY);
        long pending = v.get(MAX_PENDING);
        if (pending >= buffer) {
            throw v.invalid(MAX_PENDING, "is not below " + BUFFER_MEMORY.name() + " (" + buffer + " bytes)");
        }
        Duration linger = v.get(LINGER);
        Duration request = v.get(REQUEST_TIMEOUT);
        Duration delivery = v.get(DELIVERY_TIMEOUT);
        if (delivery.compareTo(linger.plus(request)) < 0) {
            throw v.invalid(DELIVERY_TIMEOUT, "is shorter than " + LINGER.name() + " plus " + REQUEST_TIMEOUT.name()
                    + " (" + linger.plus(request).toMillis() + " ms)");
        }
        TopicMapping mapping;
        try {
            mapping = TopicMapping.parse(v.get(TOPIC_RULES), v.get(DEFAULT_TOPIC));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(TOPIC_RULES.name() + " / " + DEFAULT_TOPIC.name() + ": " + e.getMessage()
                    + "; allowed: " + TOPIC_RULES.allowed());
        }
        return new KafkaUplinkSettings(v.get(BOOTSTRAP), v.get(ACKS), linger, v.get(BATCH_SIZE), v.get(COMPRESSION),
                buffer, pending, request, delivery, mapping, v.get(WARMUP_TIMEOUT), v.under(PRODUCER));
    }

    /** Producer properties: the pass-through ones, then the gateway's. */
    public Properties producerProperties(String clientId) {
        Properties p = new Properties();
        p.putAll(passThrough);
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ProducerConfig.ACKS_CONFIG, acks);
        // idempotence needs acks=all; with it, retries cannot reorder one device's records
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, Boolean.toString("all".equals(acks)));
        p.put(ProducerConfig.LINGER_MS_CONFIG, Long.toString(linger.toMillis()));
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Long.toString(batchSize));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression);
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(bufferMemory));
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(requestTimeout.toMillis()));
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(deliveryTimeout.toMillis()));
        // send() runs on event loops: it must fail at once rather than wait for metadata or buffer space
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "0");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return p;
    }
}
