package io.mqttgw.kafka.downlink;

import static io.mqttgw.kafka.downlink.KafkaDownlinkConfigKeys.*;

import io.mqttgw.core.config.ConfigException;
import io.mqttgw.core.config.ConfigValues;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The validated settings of the Kafka downlink of one node and the consumer properties they make.
 *
 * @param topic       the node's downlink topic, from the template
 * @param groupId     the node's consumer group, from the template
 * @param passThrough consumer properties given under {@code downlink.kafka.consumer.}, applied before the
 *                    gateway's own, so the few the gateway must own (group, commits, deserializers) win
 */
public record KafkaDownlinkSettings(String bootstrapServers, String topic, String groupId, int maxInFlight,
                                   Duration commitInterval, String autoOffsetReset, Map<String, String> passThrough) {

    public static KafkaDownlinkSettings from(ConfigValues v, String nodeId) {
        if (v.find(BOOTSTRAP).isEmpty()) {
            throw new ConfigException(BOOTSTRAP.name() + " is required while downlink.source is kafka: set it ("
                    + BOOTSTRAP.allowed() + ") as " + BOOTSTRAP.environmentVariable() + " or in the file");
        }
        String topic;
        try {
            topic = TopicTemplate.of(v.get(TOPIC_TEMPLATE)).topicFor(nodeId);
        } catch (IllegalArgumentException e) {
            throw v.invalid(TOPIC_TEMPLATE, e.getMessage());
        }
        String group = v.get(GROUP_TEMPLATE);
        if (!group.contains(TopicTemplate.NODE)) {
            throw v.invalid(GROUP_TEMPLATE, "has no " + TopicTemplate.NODE + ": nodes would commit over each "
                    + "other's offsets");
        }
        return new KafkaDownlinkSettings(v.get(BOOTSTRAP), topic, group.replace(TopicTemplate.NODE, nodeId),
                v.get(MAX_IN_FLIGHT), v.get(COMMIT_INTERVAL), v.get(AUTO_OFFSET_RESET), v.under(CONSUMER));
    }

    /** Consumer properties: the pass-through ones, then the gateway's. */
    public Properties consumerProperties(String clientId) {
        Properties p = new Properties();
        p.putAll(passThrough);
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        // offsets are committed by the gateway once the records' deliveries completed, never by a timer
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, autoOffsetReset);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return p;
    }
}
