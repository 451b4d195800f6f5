package io.mqttgw.kafka.downlink;

import static io.mqttgw.core.config.ValueParsers.duration;
import static io.mqttgw.core.config.ValueParsers.intRange;
import static io.mqttgw.core.config.ValueParsers.nonEmpty;
import static io.mqttgw.core.config.ValueParsers.oneOf;

import io.mqttgw.core.config.ConfigKey;
import java.time.Duration;
import java.util.List;

/** The keys of {@code downlink.source: kafka}; any Kafka consumer property passes through under {@link #CONSUMER}. */
public final class KafkaDownlinkConfigKeys {
    private KafkaDownlinkConfigKeys() {
    }

    /** Open prefix: {@code downlink.kafka.consumer.fetch.max.wait.ms: 100} sets the consumer's property. */
    public static final String CONSUMER = "downlink.kafka.consumer.";

    public static final ConfigKey<String> BOOTSTRAP = new ConfigKey<>("downlink.kafka.bootstrap-servers", null,
            "host:port[,host:port...]", "Kafka brokers to bootstrap from; required with downlink.source kafka.",
            nonEmpty());
    public static final ConfigKey<String> TOPIC_TEMPLATE = new ConfigKey<>("downlink.kafka.topic-template",
            TopicTemplate.DEFAULT, "a Kafka topic name containing {node}, which stands for node.id",
            "The node's downlink topic, which operators create; DownlinkClient must use the same template.",
            nonEmpty());
    public static final ConfigKey<String> GROUP_TEMPLATE = new ConfigKey<>("downlink.kafka.group-id-template",
            "mqttgw-downlink-{node}", "text containing {node}, which stands for node.id",
            "Consumer group id under which the node commits its offsets (one group per node).", nonEmpty());
    public static final ConfigKey<Integer> MAX_IN_FLIGHT = new ConfigKey<>("downlink.kafka.max-in-flight", "1000",
            "1 to 1000000", "Records handed to the gateway and not yet delivered (or found undeliverable); at this "
                    + "count the consumer pauses until half have completed.", intRange(1, 1_000_000));
    public static final ConfigKey<Duration> COMMIT_INTERVAL = new ConfigKey<>("downlink.kafka.commit-interval",
            "1s", "10ms to 1m", "How often the offsets of records whose deliveries completed are committed.",
            duration(Duration.ofMillis(10), Duration.ofMinutes(1)));
    public static final ConfigKey<String> AUTO_OFFSET_RESET = new ConfigKey<>("downlink.kafka.auto-offset-reset",
            "earliest", "earliest or latest", "Where a node without committed offsets starts reading its topic "
                    + "(auto.offset.reset).", oneOf("earliest", "latest"));

    public static final List<ConfigKey<?>> ALL = List.of(BOOTSTRAP, TOPIC_TEMPLATE, GROUP_TEMPLATE, MAX_IN_FLIGHT,
            COMMIT_INTERVAL, AUTO_OFFSET_RESET);
}
