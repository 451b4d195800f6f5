package io.mqttgw.kafka.downlink;

import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.mqttgw.core.config.ConfigKey;
import io.mqttgw.core.spi.DownlinkSource;
import io.mqttgw.core.spi.DownlinkSourceProvider;
import io.mqttgw.core.spi.ProviderContext;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * {@code downlink.source: kafka}. Builds the node's consumer of its downlink topic and binds the consumer's own
 * metrics into the gateway's registry. Nothing is asked of Kafka here: the consumer thread finds the topic's
 * partitions once started, and {@code /health} says so while it cannot.
 */
public final class KafkaDownlinkSourceProvider implements DownlinkSourceProvider {

    @Override
    public String name() {
        return "kafka";
    }

    @Override
    public List<ConfigKey<?>> configKeys() {
        return KafkaDownlinkConfigKeys.ALL;
    }

    @Override
    public List<String> openPrefixes() {
        return List.of(KafkaDownlinkConfigKeys.CONSUMER);
    }

    @Override
    public DownlinkSource create(ProviderContext context) {
        KafkaDownlinkSettings settings = KafkaDownlinkSettings.from(context.config().values(), context.nodeId());
        Consumer<byte[], byte[]> consumer = new KafkaConsumer<>(settings.consumerProperties("mqttgw-downlink-"
                + context.nodeId()));
        KafkaClientMetrics consumerMetrics = new KafkaClientMetrics(consumer);
        consumerMetrics.bindTo(context.meters());
        return new KafkaDownlinkSource(consumer, settings.topic(), settings.maxInFlight(), settings.commitInterval(),
                context.meters(), consumerMetrics);
    }
}
