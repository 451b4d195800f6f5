package io.mqttgw.kafka.mapping;

/** Messages whose MQTT topic matches {@code filter} (MQTT wildcards) go to Kafka topic {@code kafkaTopic}. */
public record TopicRule(String filter, String kafkaTopic) {
}
