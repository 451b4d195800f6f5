package io.mqttgw.kafka.mapping;

import io.mqttgw.core.topic.TopicFilters;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * MQTT topic to Kafka topic: the first rule whose filter matches wins, else the default topic. Rules are written
 * {@code FILTER=TOPIC}; a filter may name a level {@code {id}} for readability, which matches like {@code +}
 * ({@code devices/{id}/heartbeat=device.heartbeat}). Immutable and thread-safe; the scan is linear, which is the
 * fastest choice for the handful of rules a deployment has.
 */
public final class TopicMapping {
    private static final Pattern KAFKA_TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
    private static final Pattern NAMED_LEVEL = Pattern.compile("\\{[^/{}]+}");

    private final List<TopicRule> rules;
    private final String defaultTopic;

    public TopicMapping(List<TopicRule> rules, String defaultTopic) {
        this.rules = List.copyOf(rules);
        this.defaultTopic = defaultTopic;
    }

    /**
     * Parses {@code FILTER=TOPIC} entries.
     *
     * @throws IllegalArgumentException naming the entry that is not a valid filter and Kafka topic
     */
    public static TopicMapping parse(List<String> entries, String defaultTopic) {
        requireKafkaTopic(defaultTopic, "default topic");
        List<TopicRule> rules = new ArrayList<>();
        for (String entry : entries) {
            int eq = entry.lastIndexOf('=');
            if (eq <= 0 || eq == entry.length() - 1) {
                throw new IllegalArgumentException("rule '" + entry + "' is not FILTER=TOPIC");
            }
            String filter = NAMED_LEVEL.matcher(entry.substring(0, eq).trim()).replaceAll("+");
            String topic = entry.substring(eq + 1).trim();
            if (!TopicFilters.isValidFilter(filter)) {
                throw new IllegalArgumentException("rule '" + entry + "' has an invalid MQTT topic filter");
            }
            requireKafkaTopic(topic, "rule '" + entry + "'");
            rules.add(new TopicRule(filter, topic));
        }
        return new TopicMapping(rules, defaultTopic);
    }

    private static void requireKafkaTopic(String topic, String where) {
        if (!KAFKA_TOPIC.matcher(topic).matches()) {
            throw new IllegalArgumentException(where + ": '" + topic
                    + "' is not a Kafka topic name (letters, digits, '.', '_', '-', at most 249)");
        }
    }

    public String kafkaTopic(String mqttTopic) {
        for (TopicRule rule : rules) {
            if (TopicFilters.matches(rule.filter(), mqttTopic)) {
                return rule.kafkaTopic();
            }
        }
        return defaultTopic;
    }

    /** Every Kafka topic a message can go to, for warming producer metadata at startup. */
    public Set<String> kafkaTopics() {
        Set<String> topics = new LinkedHashSet<>();
        rules.forEach(r -> topics.add(r.kafkaTopic()));
        topics.add(defaultTopic);
        return topics;
    }

    public String defaultTopic() {
        return defaultTopic;
    }

    public List<TopicRule> rules() {
        return rules;
    }
}
