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
        Map<String, String> passThrough = v.under(PRODUCER);
        String acks = v.get(ACKS);
        String inFlight = passThrough.get(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION);
        if ("all".equals(acks) && inFlight != null && !inFlightAllowsIdempotence(inFlight)) {
            throw new ConfigException(PRODUCER + ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION + " = '"
                    + inFlight + "' is not allowed while " + ACKS.name() + " is all: idempotence needs 1 to "
                    + MAX_IN_FLIGHT_IDEMPOTENT + "; remove the key or set it in that range");
        }
        TopicMapping mapping;
        try {
            mapping = TopicMapping.parse(v.get(TOPIC_RULES), v.get(DEFAULT_TOPIC));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(TOPIC_RULES.name() + " / " + DEFAULT_TOPIC.name() + ": " + e.getMessage()
                    + "; allowed: " + TOPIC_RULES.allowed());
        }
        return new KafkaUplinkSettings(v.get(BOOTSTRAP), acks, linger, v.get(BATCH_SIZE), v.get(COMPRESSION),
                buffer, pending, request, delivery, mapping, v.get(WARMUP_TIMEOUT), passThrough);
    }

    /** The most requests in flight per connection with which the producer keeps idempotent order. */
    static final int MAX_IN_FLIGHT_IDEMPOTENT = 5;

    private static boolean inFlightAllowsIdempotence(String value) {
        try {
            int n = Integer.parseInt(value.trim());
            return n >= 1 && n <= MAX_IN_FLIGHT_IDEMPOTENT;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** Producer properties: the pass-through ones, then the gateway's. */
    public Properties producerProperties(String clientId) {
        Properties p = new Properties();
        p.putAll(passThrough);
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ProducerConfig.ACKS_CONFIG, acks);
        // the durable default: a PUBACK follows a write to every in-sync replica, and idempotence keeps retries
        // from duplicating or reordering one device's records (it needs acks=all and at most 5 requests in flight)
        boolean durable = "all".equals(acks);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, Boolean.toString(durable));
        if (durable) {
            p.putIfAbsent(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
                    Integer.toString(MAX_IN_FLIGHT_IDEMPOTENT));
        }
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
