package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.Mqtt5BlockingClient;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAck;
import com.hivemq.client.mqtt.mqtt5.message.connect.connack.Mqtt5ConnAckReasonCode;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5PublishResult;
import com.hivemq.client.mqtt.mqtt5.message.publish.puback.Mqtt5PubAckReasonCode;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.core.testkit.ControlledSink;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.netty.handler.codec.mqtt.MqttVersion;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** MQTT 5.0 devices (the HiveMQ client's 5.0 API) over real mutual-TLS sockets against one gateway. */
class Mqtt5IT {
    @TempDir
    static Path dir;
    static TestPki pki;
    static Gateway gateway;

    @BeforeAll
    static void start() {
        pki = TestPki.create(dir.resolve("pki"));
        gateway = TestGateway.tls(pki, dir).with("uplink.sink", "controlled").with("mqtt.max-inflight-uplink", "12")
                .with("mqtt.topic-alias-maximum", "7").with("mqtt.max-keep-alive", "30s").start();
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    @Test
    void connectsAndLearnsTheGatewaysLimitsFromConnAck() {
        Mqtt5BlockingClient c = TestDevices.mutualTls5(pki, gateway.tlsPort(), "dev-5a").buildBlocking();
        Mqtt5ConnAck ack = c.connectWith().keepAlive(60).send();
        try {
            assertEquals(Mqtt5ConnAckReasonCode.SUCCESS, ack.getReasonCode());
            assertEquals(12, ack.getRestrictions().getReceiveMaximum(), "the uplink window");
            assertEquals(7, ack.getRestrictions().getTopicAliasMaximum());
            assertEquals(256 * 1024, ack.getRestrictions().getMaximumPacketSize());
            assertFalse(ack.getRestrictions().isSharedSubscriptionAvailable());
            assertTrue(ack.getRestrictions().isWildcardSubscriptionAvailable());
            assertTrue(ack.getRestrictions().isRetainAvailable());
            assertEquals(30, ack.getServerKeepAlive().orElseThrow(), "mqtt.max-keep-alive caps 60 s");
            assertEquals(MqttVersion.MQTT_5,
                    ConnectionContext.of(gateway.registry().find("dev-5a")).capabilities().version());
        } finally {
            c.disconnect();
        }
    }

    @Test
    void publishesQos1AndGetsPubAckOnceTheSinkHasIt() throws Exception {
        Mqtt5AsyncClient c = TestDevices.mutualTls5(pki, gateway.tlsPort(), "dev-5b").buildAsync();
        c.connect().get(15, TimeUnit.SECONDS);
        try {
            CompletableFuture<Mqtt5PublishResult> result = c.publishWith().topic("devices/dev-5b/telemetry")
                    .qos(MqttQos.AT_LEAST_ONCE).payload("t=21".getBytes(StandardCharsets.UTF_8)).send();
            ControlledSink.Pending pending = ControlledSink.of(gateway).next(15);
            assertEquals("devices/dev-5b/telemetry", pending.message().topic());
            assertArrayEquals("t=21".getBytes(StandardCharsets.UTF_8), pending.message().payload());
            assertFalse(result.isDone(), "no PUBACK before the sink acknowledged");
            pending.done().complete(null);
            Mqtt5PublishResult.Mqtt5Qos1Result ack = (Mqtt5PublishResult.Mqtt5Qos1Result)
                    result.get(15, TimeUnit.SECONDS);
            assertEquals(Mqtt5PubAckReasonCode.SUCCESS, ack.getPubAck().getReasonCode());
        } finally {
            c.disconnect().get(15, TimeUnit.SECONDS);
        }
    }

    @Test
    void subscribesAndReceivesADownlinkCommand() throws Exception {
        Mqtt5AsyncClient c = TestDevices.mutualTls5(pki, gateway.tlsPort(), "dev-5c").buildAsync();
        LinkedBlockingQueue<Mqtt5Publish> received = new LinkedBlockingQueue<>();
        c.publishes(MqttGlobalPublishFilter.ALL, received::add);
        c.connect().get(15, TimeUnit.SECONDS);
        try {
            c.subscribeWith().topicFilter("devices/dev-5c/commands").qos(MqttQos.AT_LEAST_ONCE).send()
                    .get(15, TimeUnit.SECONDS);
            DownlinkTarget.Outcome outcome = gateway.downlink().deliver(new DownlinkMessage("dev-5c",
                    "devices/dev-5c/commands", 1, false, "reboot".getBytes(StandardCharsets.UTF_8)))
                    .toCompletableFuture().get(15, TimeUnit.SECONDS);
            assertEquals(DownlinkTarget.Outcome.DELIVERED, outcome, "acknowledged by the 5.0 device");
            Mqtt5Publish command = received.poll(15, TimeUnit.SECONDS);
            assertEquals("devices/dev-5c/commands", command.getTopic().toString());
            assertEquals("reboot", new String(command.getPayloadAsBytes(), StandardCharsets.UTF_8));
        } finally {
            c.disconnect();
        }
    }
}
