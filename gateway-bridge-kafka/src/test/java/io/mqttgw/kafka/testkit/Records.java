package io.mqttgw.kafka.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reads what is in a topic, from the beginning, as a platform's consumer would. */
public final class Records {
    private Records() {
    }

    /** Every record of {@code topic}, polling until {@code atLeast} arrived or 20 s passed. */
    public static List<ConsumerRecord<byte[], byte[]>> read(String bootstrap, String topic, int atLeast) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"))) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 20_000;
            while (out.size() < atLeast && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
            // one more short poll: anything beyond atLeast that is already there
            consumer.poll(Duration.ofMillis(300)).forEach(out::add);
            return out;
        }
    }
}
