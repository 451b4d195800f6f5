package io.mqttgw.kafka.downlink.client;

import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.Route;
import io.mqttgw.kafka.downlink.DownlinkHeaders;
import io.mqttgw.kafka.downlink.TopicTemplate;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Sends commands to devices through the gateway: looks up the node that holds the device and produces a record to
 * that node's downlink topic, which the node's consumer hands to the device. For a business service, thread-safe,
 * one per service. Build with {@link #builder()}; close to close the producer it made.
 *
 * <p>The stages complete on the producer's I/O thread (or the lookup's thread, for a device on no node): do not
 * block in what is chained to them. {@code producer.send} runs on the thread that completed the lookup unless
 * {@link Builder#sendExecutor} says otherwise; it may block up to the producer's {@code max.block.ms} while a
 * topic's metadata is fetched for the first time.
 *
 * <p>A stage that completes {@link SendResult.Status#SENT} means Kafka has the record, not that the device got it:
 * the node counts what became of it (delivered, not connected, not subscribed, expired) in its metrics.
 */
public final class DownlinkClient implements AutoCloseable {
    private static final byte[][] QOS = {{'0'}, {'1'}, {'2'}};
    private static final byte[] BROADCAST_KEY = DownlinkHeaders.BROADCAST_KEY.getBytes(StandardCharsets.UTF_8);

    private final Producer<byte[], byte[]> producer;
    private final boolean ownsProducer;
    private final TopicTemplate template;
    private final Function<String, ? extends CompletionStage<Optional<Route>>> routes;
    private final Supplier<? extends Collection<String>> nodes;
    private final OfflinePolicy offline;
    private final Executor sendExecutor;

    private DownlinkClient(Builder b) {
        this.template = TopicTemplate.of(b.topicTemplate);
        this.routes = Objects.requireNonNull(b.routes, "routes: a route lookup is required");
        this.nodes = b.nodes;
        this.offline = b.offline;
        this.sendExecutor = b.sendExecutor;
        if (b.producer != null) {
            this.producer = b.producer;
            this.ownsProducer = false;
        } else {
            Map<String, Object> props = new HashMap<>(b.producerProperties);
            props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            this.producer = new KafkaProducer<>(props);
            this.ownsProducer = true;
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A command at {@code qos}, not retained, that does not expire. */
    public CompletionStage<SendResult> send(String clientId, String topic, int qos, byte[] payload) {
        return send(clientId, topic, qos, false, payload, null);
    }

    /** A command at {@code qos}, not retained, not delivered (nor retried) after {@code expiresAt}. */
    public CompletionStage<SendResult> send(String clientId, String topic, int qos, byte[] payload,
                                            Instant expiresAt) {
        return send(clientId, topic, qos, false, payload, expiresAt);
    }

    /**
     * Looks up {@code clientId}'s node and produces the command to its downlink topic; for a device on no node,
     * applies the offline policy. The stage fails when the lookup or Kafka fails.
     *
     * @param expiresAt null for never
     * @throws IllegalArgumentException for an empty or {@code *} client id, a topic with wildcards, a QoS other
     *                                  than 0, 1 or 2
     */
    public CompletionStage<SendResult> send(String clientId, String topic, int qos, boolean retain, byte[] payload,
                                            Instant expiresAt) {
        if (clientId == null || clientId.isEmpty() || DownlinkHeaders.BROADCAST_KEY.equals(clientId)) {
            throw new IllegalArgumentException("client id '" + clientId + "': want a device's client id");
        }
        RecordHeaders headers = headers(topic, qos, retain, expiresAt);
        Objects.requireNonNull(payload, "payload");
        byte[] key = clientId.getBytes(StandardCharsets.UTF_8);
        CompletionStage<Optional<Route>> lookup = routes.apply(clientId);
        Function<Optional<Route>, CompletionStage<SendResult>> produce = route -> {
            if (route.isPresent()) {
                String nodeId = route.get().nodeId();
                return produce(template.topicFor(nodeId), key, payload, headers, SendResult.Status.SENT, nodeId);
            }
            if (offline.store() != null) {
                if (qos == 0) {
                    return CompletableFuture.completedFuture(SendResult.dropped());
                }
                // the stored copy is a delivery to a subscriber, which carries retain 0 (MQTT-3.3.1-9), as the
                // gateway's own offline queueing stores it; it does not become the topic's retained message
                DownlinkMessage message = new DownlinkMessage(clientId, topic, qos, false, payload,
                        expiresAt == null ? 0L : expiresAt.toEpochMilli());
                return offline.store().apply(message).thenApply(append -> SendResult.offline(
                        switch (append.status()) {
                            case STORED -> SendResult.Status.STORED;
                            case FULL -> SendResult.Status.QUEUE_FULL;
                            case NO_SESSION -> SendResult.Status.NOT_CONNECTED;
                        }));
            }
            if (offline.topic() == null) {
                return CompletableFuture.completedFuture(SendResult.dropped());
            }
            return produce(offline.topic(), key, payload, headers, SendResult.Status.NOT_CONNECTED, null);
        };
        return sendExecutor == null ? lookup.thenCompose(produce) : lookup.thenComposeAsync(produce, sendExecutor);
    }

    /**
     * A broadcast to the nodes the builder's {@link Builder#nodes} supplier lists: each node hands it to its devices
     * subscribed to a filter matching {@code topic}. The stage completes with the number of nodes written to.
     */
    public CompletionStage<Integer> broadcast(String topic, int qos, byte[] payload) {
        if (nodes == null) {
            throw new IllegalStateException("no node list: give the builder nodes(...) or call broadcast(nodes, ...)");
        }
        return broadcast(nodes.get(), topic, qos, payload);
    }

    /** A broadcast record ({@code *} key) to the downlink topic of each of {@code nodeIds}. */
    public CompletionStage<Integer> broadcast(Collection<String> nodeIds, String topic, int qos, byte[] payload) {
        return broadcast(nodeIds, topic, qos, false, payload);
    }

    /**
     * A broadcast that, with {@code retain}, also becomes the topic's retained message: a device that subscribes
     * later to a matching filter (wildcards too) gets it then, on any node sharing the session store. An empty
     * payload with {@code retain} deletes the retained message.
     */
    public CompletionStage<Integer> broadcast(Collection<String> nodeIds, String topic, int qos, boolean retain,
                                              byte[] payload) {
        RecordHeaders headers = headers(topic, qos, retain, null);
        Objects.requireNonNull(payload, "payload");
        List<CompletableFuture<SendResult>> all = new ArrayList<>();
        for (String node : nodeIds) {
            all.add(produce(template.topicFor(node), BROADCAST_KEY, payload, headers, SendResult.Status.SENT, node)
                    .toCompletableFuture());
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).thenApply(v -> all.size());
    }

    private static RecordHeaders headers(String topic, int qos, boolean retain, Instant expiresAt) {
        if (topic == null || topic.isEmpty() || topic.indexOf('+') >= 0 || topic.indexOf('#') >= 0) {
            throw new IllegalArgumentException("MQTT topic '" + topic + "': want a topic name without wildcards");
        }
        if (qos < 0 || qos > 2) {
            throw new IllegalArgumentException("QoS " + qos + ": want 0, 1 or 2");
        }
        RecordHeaders headers = new RecordHeaders();
        headers.add(new RecordHeader(DownlinkHeaders.TOPIC, topic.getBytes(StandardCharsets.UTF_8)));
        headers.add(new RecordHeader(DownlinkHeaders.QOS, QOS[qos]));
        if (retain) {
            headers.add(new RecordHeader(DownlinkHeaders.RETAIN, "true".getBytes(StandardCharsets.US_ASCII)));
        }
        if (expiresAt != null) {
            headers.add(new RecordHeader(DownlinkHeaders.EXPIRES_AT,
                    Long.toString(expiresAt.toEpochMilli()).getBytes(StandardCharsets.US_ASCII)));
        }
        return headers;
    }

    private CompletionStage<SendResult> produce(String kafkaTopic, byte[] key, byte[] payload, RecordHeaders headers,
                                                SendResult.Status status, String nodeId) {
        CompletableFuture<SendResult> result = new CompletableFuture<>();
        try {
            producer.send(new ProducerRecord<>(kafkaTopic, null, key, payload, headers), (metadata, error) -> {
                if (error != null) {
                    result.completeExceptionally(error);
                } else {
                    result.complete(new SendResult(status, nodeId, kafkaTopic, metadata.partition(),
                            metadata.offset()));
                }
            });
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
        }
        return result;
    }

    /** Flushes and closes the producer, if the client made it. */
    @Override
    public void close() {
        if (ownsProducer) {
            producer.close();
        }
    }

    /** How to build a {@link DownlinkClient}. */
    public static final class Builder {
        private final Map<String, Object> producerProperties = new HashMap<>();
        private Producer<byte[], byte[]> producer;
        private String topicTemplate = TopicTemplate.DEFAULT;
        private Function<String, ? extends CompletionStage<Optional<Route>>> routes;
        private Supplier<? extends Collection<String>> nodes;
        private OfflinePolicy offline = OfflinePolicy.drop();
        private Executor sendExecutor;

        private Builder() {
        }

        /** Kafka producer properties ({@code bootstrap.servers}, security, acks...); the client sets serializers. */
        public Builder producerProperties(Map<String, ?> properties) {
            producerProperties.putAll(properties);
            return this;
        }

        /** An existing producer of byte arrays instead of properties; the client does not close it. */
        public Builder producer(Producer<byte[], byte[]> producer) {
            this.producer = producer;
            return this;
        }

        /** The gateway's {@code downlink.kafka.topic-template}; default {@code device.downlink.{node}}. */
        public Builder topicTemplate(String template) {
            this.topicTemplate = template;
            return this;
        }

        /** Where a device is connected, e.g. {@code routeStore::lookup}; an empty answer means on no node. */
        public Builder routes(Function<String, ? extends CompletionStage<Optional<Route>>> lookup) {
            this.routes = lookup;
            return this;
        }

        /** The gateway nodes, for {@link #broadcast(String, int, byte[])}. */
        public Builder nodes(Supplier<? extends Collection<String>> nodes) {
            this.nodes = nodes;
            return this;
        }

        /** What happens to a command for a device on no node; default {@link OfflinePolicy#drop()}. */
        public Builder offlinePolicy(OfflinePolicy policy) {
            this.offline = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** Where {@code producer.send} runs once the lookup answered; default the lookup's own thread. */
        public Builder sendExecutor(Executor executor) {
            this.sendExecutor = executor;
            return this;
        }

        /** @throws IllegalArgumentException for a topic template without {@code {node}} */
        public DownlinkClient build() {
            return new DownlinkClient(this);
        }
    }
}
