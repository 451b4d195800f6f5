package io.mqttgw.kafka.mapping;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.kafka.testkit.KafkaBroker;
import io.mqttgw.kafka.testkit.SharedKafkaBroker;
import io.mqttgw.kafka.testkit.Records;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MQTT 5.0 request/response pattern through a real Kafka broker and a real 5.0 device (HiveMQ client, mutual TLS):
 * a business service produces a command with a response topic, correlation data and a user property; the device gets
 * them as PUBLISH properties, answers on the response topic with the correlation data, and the answer reaches Kafka
 * with the correlation data and the user properties as headers.
 */
class Mqtt5RequestResponseIT {
    @TempDir
    static Path dir;
    @RegisterExtension
    static final SharedKafkaBroker KAFKA = new SharedKafkaBroker();
    static KafkaBroker broker;
    static TestPki pki;

    @BeforeAll
    static void start() throws Exception {
        broker = KAFKA.broker();
        broker.createTopics("device.downlink.rr-node", "device.replies", "device.uplink");
        pki = TestPki.create(dir.resolve("pki"));
    }

    @Test
    void aCommandWithAResponseTopicIsAnsweredAndTheAnswerReachesKafkaWithItsCorrelationData() throws Exception {
        byte[] correlation = {0x0C, 0x0A, (byte) 0xFE, 0x01};
        try (Gateway gateway = TestGateway.tls(pki, dir.resolve("rr-node"))
                .with("node.id", "rr-node")
                .with("acl.subscribe", "devices/{client-id}/#")
                .with("acl.publish", "devices/{client-id}/#")
                .with("uplink.sink", "kafka")
                .with("uplink.kafka.bootstrap-servers", broker.bootstrapServers())
                .with("uplink.kafka.topic-rules", "devices/+/replies=device.replies")
                .with("uplink.kafka.linger", "5ms")
                .with("uplink.kafka.warmup-timeout", "20s")
                .with("downlink.source", "kafka")
                .with("downlink.kafka.bootstrap-servers", broker.bootstrapServers())
                .with("downlink.kafka.commit-interval", "100ms").start();
             KafkaProducer<byte[], byte[]> service = new KafkaProducer<>(Map.of("bootstrap.servers",
                     broker.bootstrapServers(), "linger.ms", 0), new ByteArraySerializer(),
                     new ByteArraySerializer())) {
            Mqtt5AsyncClient device = TestDevices.mutualTls5(pki, gateway.tlsPort(), "dev-rr").buildAsync();
            LinkedBlockingQueue<Mqtt5Publish> commands = new LinkedBlockingQueue<>();
            device.publishes(MqttGlobalPublishFilter.ALL, command -> {
                commands.add(command);
                // the device's side of the pattern: answer on the response topic with the correlation data
                device.publishWith().topic(command.getResponseTopic().orElseThrow())
                        .correlationData(command.getCorrelationData().orElseThrow())
                        .userProperties().add("trace", "from-device").applyUserProperties()
                        .contentType("text/plain").messageExpiryInterval(30).qos(MqttQos.AT_LEAST_ONCE)
                        .payload("done".getBytes(StandardCharsets.UTF_8)).send();
            });
            device.connect().get(20, TimeUnit.SECONDS);
            device.subscribeWith().topicFilter("devices/dev-rr/commands").qos(MqttQos.AT_LEAST_ONCE).send()
                    .get(20, TimeUnit.SECONDS);

            RecordHeaders headers = new RecordHeaders();
            headers.add("mqtt.topic", "devices/dev-rr/commands".getBytes(StandardCharsets.UTF_8));
            headers.add("expires.at", Long.toString(System.currentTimeMillis() + 120_000)
                    .getBytes(StandardCharsets.US_ASCII));
            headers.add("mqtt.response-topic", "devices/dev-rr/replies".getBytes(StandardCharsets.UTF_8));
            headers.add("mqtt.correlation-data", correlation);
            headers.add("mqtt.user.trace", "from-service".getBytes(StandardCharsets.UTF_8));
            service.send(new ProducerRecord<>("device.downlink.rr-node", null,
                    "dev-rr".getBytes(StandardCharsets.UTF_8),
                    "reboot".getBytes(StandardCharsets.UTF_8), headers)).get(20, TimeUnit.SECONDS);

            Mqtt5Publish command = commands.poll(30, TimeUnit.SECONDS);
            assertNotNull(command, "the command reached the device");
            assertEquals("devices/dev-rr/replies", command.getResponseTopic().orElseThrow().toString());
            assertArrayEquals(correlation, bytes(command.getCorrelationData().orElseThrow()));
            assertEquals(List.of("trace=from-service"), command.getUserProperties().asList().stream()
                    .map(u -> u.getName() + "=" + u.getValue()).toList());
            long left = command.getMessageExpiryInterval().orElseThrow();
            assertTrue(left > 60 && left <= 120, "the expiry interval left: " + left);

            List<ConsumerRecord<byte[], byte[]>> replies = Records.read(broker.bootstrapServers(), "device.replies", 1);
            assertEquals(1, replies.size());
            ConsumerRecord<byte[], byte[]> reply = replies.get(0);
            assertEquals("done", new String(reply.value(), StandardCharsets.UTF_8));
            assertArrayEquals(correlation, reply.headers().lastHeader("mqtt.correlation-data").value(),
                    "the business service matches the answer to its request by this header");
            assertEquals("from-device", new String(reply.headers().lastHeader("mqtt.user.trace").value(),
                    StandardCharsets.UTF_8));
            assertEquals("text/plain", new String(reply.headers().lastHeader("mqtt.content-type").value(),
                    StandardCharsets.UTF_8));
            // the answer's deadline, for the service that may read it late
            long receivedAt = Long.parseLong(new String(reply.headers().lastHeader("received.at").value(),
                    StandardCharsets.US_ASCII));
            assertEquals(receivedAt + 30_000, Long.parseLong(new String(reply.headers().lastHeader("expires.at")
                    .value(), StandardCharsets.US_ASCII)));
            device.disconnect().get(20, TimeUnit.SECONDS);
        }
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
