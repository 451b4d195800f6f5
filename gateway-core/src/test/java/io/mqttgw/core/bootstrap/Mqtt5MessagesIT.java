package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt5.Mqtt5AsyncClient;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5Publish;
import com.hivemq.client.mqtt.mqtt5.message.publish.Mqtt5PublishResult;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget.Outcome;
import io.mqttgw.core.testkit.ControlledSink;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.netty.util.AttributeKey;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.eclipse.paho.mqttv5.client.MqttClient;
import org.eclipse.paho.mqttv5.client.MqttConnectionOptions;
import org.eclipse.paho.mqttv5.client.persist.MemoryPersistence;
import org.eclipse.paho.mqttv5.common.MqttMessage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MQTT 5.0 message flow with two independent 5.0 clients (HiveMQ's 5.0 API and Eclipse Paho mqttv5) over real
 * mutual-TLS sockets: receive maximum both ways, uplink topic aliases, message expiry of queued downlink.
 */
class Mqtt5MessagesIT {
    private static final int WINDOW = 4;
    @TempDir
    static Path dir;
    static TestPki pki;
    static Gateway gateway;

    @BeforeAll
    static void start() {
        pki = TestPki.create(dir.resolve("pki"));
        gateway = TestGateway.tls(pki, dir).with("uplink.sink", "controlled")
                .with("mqtt.max-inflight-uplink", Integer.toString(WINDOW)).with("mqtt.topic-alias-maximum", "3")
                .with("downlink.max-inflight", "16").start();
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    static MqttClient paho(String clientId, boolean cleanStart) throws Exception {
        MqttClient client = new MqttClient("ssl://127.0.0.1:" + gateway.tlsPort(), clientId, new MemoryPersistence());
        MqttConnectionOptions options = new MqttConnectionOptions();
        options.setSocketFactory(pki.clientContext(pki.device(clientId)).getSocketFactory());
        options.setHttpsHostnameVerificationEnabled(false);
        options.setCleanStart(cleanStart);
        options.setSessionExpiryInterval(cleanStart ? 0L : 600L);
        options.setConnectionTimeout(15);
        options.setAutomaticReconnect(false);
        client.connect(options);
        return client;
    }

    /** Paho uses topic aliases by itself once CONNACK announces a maximum: the second PUBLISH has an empty topic. */
    @Test
    void uplinkTopicAliasesFromPahoReachTheSinkWithTheirTopic() throws Exception {
        MqttClient device = paho("dev-alias", true);
        try {
            for (int i = 0; i < 3; i++) {
                device.publish("devices/dev-alias/telemetry", ("m" + i).getBytes(StandardCharsets.UTF_8), 0, false);
            }
            for (int i = 0; i < 3; i++) {
                ControlledSink.Pending p = ControlledSink.of(gateway).next(15);
                assertEquals("devices/dev-alias/telemetry", p.message().topic());
                assertEquals("m" + i, new String(p.message().payload(), StandardCharsets.UTF_8));
                p.done().complete(null);
            }
            assertTrue(device.isConnected());
        } finally {
            device.disconnect();
            device.close();
        }
    }

    /** HiveMQ's client keeps to the receive maximum the gateway announced: never more unacknowledged than that. */
    @Test
    void aFiveClientKeepsToTheGatewaysReceiveMaximum() throws Exception {
        Mqtt5AsyncClient device = TestDevices.mutualTls5(pki, gateway.tlsPort(), "dev-rmax").buildAsync();
        device.connect().get(15, TimeUnit.SECONDS);
        try {
            List<CompletableFuture<Mqtt5PublishResult>> results = new ArrayList<>();
            for (int i = 0; i < WINDOW * 2; i++) {
                results.add(device.publishWith().topic("devices/dev-rmax/t").qos(MqttQos.AT_LEAST_ONCE)
                        .payload(new byte[] {(byte) i}).send());
            }
            List<ControlledSink.Pending> held = new ArrayList<>();
            for (int i = 0; i < WINDOW; i++) {
                held.add(ControlledSink.of(gateway).next(15));
            }
            Thread.sleep(500);
            assertEquals(WINDOW, held.size());
            assertEquals(0, ControlledSink.of(gateway).waiting(), "the client waits for acknowledgements");
            held.forEach(p -> p.done().complete(null));
            for (int i = 0; i < WINDOW; i++) {
                ControlledSink.of(gateway).next(15).done().complete(null);
            }
            for (CompletableFuture<Mqtt5PublishResult> r : results) {
                r.get(15, TimeUnit.SECONDS);
            }
        } finally {
            device.disconnect();
        }
    }

    /**
     * A device that sends past the receive maximum is closed (DISCONNECT 0x93 where the server DISCONNECT is in). QoS 2
     * messages count until their PUBREL, which this device never sends, so its next PUBLISH is one too many even though
     * the sink answered everything (uplink back-pressure alone would not stop it).
     */
    @Test
    void aDeviceSendingMoreThanTheReceiveMaximumIsClosed() throws Exception {
        try (SSLSocket socket = (SSLSocket) pki.clientContext(pki.device("dev-greedy")).getSocketFactory()
                .createSocket("127.0.0.1", gateway.tlsPort())) {
            socket.setSoTimeout(15_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write(encode(MqttMessageBuilders.connect().clientId("dev-greedy").protocolVersion(MqttVersion.MQTT_5)
                    .cleanSession(true).keepAlive(60).build()));
            out.flush();
            assertEquals(0x20, readPacket(in)[0], "CONNACK");
            for (int id = 1; id <= WINDOW; id++) {
                out.write(encode(publish(id, MqttQoS.EXACTLY_ONCE)));
            }
            out.flush();
            for (int i = 0; i < WINDOW; i++) {
                ControlledSink.of(gateway).next(15).done().complete(null);
            }
            for (int i = 0; i < WINDOW; i++) {
                assertEquals(0x50, readPacket(in)[0], "PUBREC");
            }
            out.write(encode(publish(WINDOW + 1, MqttQoS.AT_LEAST_ONCE)));
            out.flush();
            byte[] last = readPacket(in);
            if (last != null) {
                assertEquals(0xE0, last[0] & 0xFF, "only a server DISCONNECT may come");
                assertEquals(0x93, last[1] & 0xFF, "receive maximum exceeded");
                last = readPacket(in);
            }
            assertNull(last, "closed");
            Thread.sleep(300);
            assertEquals(0, ControlledSink.of(gateway).waiting(),
                    "the PUBLISH past the maximum never reached the sink");
        }
    }

    private static MqttPublishMessage publish(int id, MqttQoS qos) {
        return new MqttPublishMessage(new MqttFixedHeader(MqttMessageType.PUBLISH, false, qos, false, 0),
                new MqttPublishVariableHeader("devices/dev-greedy/t", id, MqttProperties.NO_PROPERTIES),
                Unpooled.wrappedBuffer(new byte[] {1}));
    }

    /** One packet: its first byte, then its body; null at the end of the stream (or a reset). */
    private static byte[] readPacket(InputStream in) throws Exception {
        int first;
        try {
            first = in.read();
        } catch (java.net.SocketException | javax.net.ssl.SSLException closed) {
            return null;
        }
        if (first < 0) {
            return null;
        }
        int length = 0;
        int shift = 0;
        int digit;
        do {
            digit = in.read();
            length |= (digit & 0x7F) << shift;
            shift += 7;
        } while ((digit & 0x80) != 0);
        byte[] packet = new byte[1 + length];
        packet[0] = (byte) first;
        int read = 0;
        while (read < length) {
            int n = in.read(packet, 1 + read, length - read);
            if (n < 0) {
                throw new java.io.EOFException();
            }
            read += n;
        }
        return packet;
    }

    private static final AttributeKey<MqttVersion> MQTT_VERSION = AttributeKey.valueOf("NETTY_CODEC_MQTT_VERSION");

    private static byte[] encode(io.netty.handler.codec.mqtt.MqttMessage m) {
        EmbeddedChannel encoder = new EmbeddedChannel(MqttEncoder.INSTANCE);
        encoder.attr(MQTT_VERSION).set(MqttVersion.MQTT_5);
        encoder.writeOutbound(m);
        ByteBuf buf = encoder.readOutbound();
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        buf.release();
        encoder.finishAndReleaseAll();
        return bytes;
    }

    /** The gateway keeps to the receive maximum the device announced: never more of its downlink unacknowledged. */
    @Test
    void theGatewayKeepsToTheDevicesReceiveMaximum() throws Exception {
        Mqtt5AsyncClient device = TestDevices.mutualTls5(pki, gateway.tlsPort(), "dev-slow").buildAsync();
        LinkedBlockingQueue<Mqtt5Publish> received = new LinkedBlockingQueue<>();
        device.publishes(MqttGlobalPublishFilter.ALL, received::add, true);
        device.connectWith().restrictions().receiveMaximum(2).applyRestrictions().send().get(15, TimeUnit.SECONDS);
        try {
            device.subscribeWith().topicFilter("devices/dev-slow/#").qos(MqttQos.AT_LEAST_ONCE).send()
                    .get(15, TimeUnit.SECONDS);
            List<CompletableFuture<Outcome>> outcomes = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                outcomes.add(gateway.downlink().deliver(new DownlinkMessage("dev-slow", "devices/dev-slow/c" + i, 1,
                        false, new byte[] {(byte) i})).toCompletableFuture());
            }
            List<Mqtt5Publish> first = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                first.add(received.poll(15, TimeUnit.SECONDS));
            }
            assertNull(received.poll(1, TimeUnit.SECONDS), "receive maximum 2: the third waits");
            first.forEach(Mqtt5Publish::acknowledge);
            for (int i = 0; i < 3; i++) {
                Mqtt5Publish next = received.poll(15, TimeUnit.SECONDS);
                assertNotNull(next);
                next.acknowledge();
            }
            for (CompletableFuture<Outcome> o : outcomes) {
                assertEquals(Outcome.DELIVERED, o.get(15, TimeUnit.SECONDS));
            }
        } finally {
            device.disconnect();
        }
    }

    /** Queued for an offline persistent session: what expired meanwhile is not sent, the rest carries its time left. */
    @Test
    void queuedDownlinkExpiresWhileTheDeviceIsAwayAndTheRestCarriesTheIntervalLeft() throws Exception {
        MqttClient device = paho("dev-away", false);
        device.subscribe("devices/dev-away/#", 1);
        device.disconnect();
        long now = System.currentTimeMillis();
        assertEquals(Outcome.QUEUED, gateway.downlink().deliver(new DownlinkMessage("dev-away",
                "devices/dev-away/short", 1, false, "short".getBytes(StandardCharsets.UTF_8), now + 500))
                .toCompletableFuture().get(15, TimeUnit.SECONDS));
        assertEquals(Outcome.QUEUED, gateway.downlink().deliver(new DownlinkMessage("dev-away",
                "devices/dev-away/long", 1, false, "long".getBytes(StandardCharsets.UTF_8), now + 60_000))
                .toCompletableFuture().get(15, TimeUnit.SECONDS));
        Thread.sleep(1_000);

        LinkedBlockingQueue<String> got = new LinkedBlockingQueue<>();
        LinkedBlockingQueue<Long> expiry = new LinkedBlockingQueue<>();
        MqttClient client = new MqttClient("ssl://127.0.0.1:" + gateway.tlsPort(), "dev-away", new MemoryPersistence());
        client.setCallback(new org.eclipse.paho.mqttv5.client.MqttCallback() {
            @Override
            public void disconnected(org.eclipse.paho.mqttv5.client.MqttDisconnectResponse r) {
            }

            @Override
            public void mqttErrorOccurred(org.eclipse.paho.mqttv5.common.MqttException e) {
            }

            @Override
            public void messageArrived(String topic, MqttMessage message) {
                got.add(topic);
                Long left = message.getProperties().getMessageExpiryInterval();
                expiry.add(left == null ? -1L : left);
            }

            @Override
            public void deliveryComplete(org.eclipse.paho.mqttv5.client.IMqttToken token) {
            }

            @Override
            public void connectComplete(boolean reconnect, String serverURI) {
            }

            @Override
            public void authPacketArrived(int reasonCode, org.eclipse.paho.mqttv5.common.packet.MqttProperties p) {
            }
        });
        MqttConnectionOptions options = new MqttConnectionOptions();
        options.setSocketFactory(pki.clientContext(pki.device("dev-away")).getSocketFactory());
        options.setHttpsHostnameVerificationEnabled(false);
        options.setCleanStart(false);
        options.setSessionExpiryInterval(600L);
        client.connect(options);
        try {
            assertEquals("devices/dev-away/long", got.poll(15, TimeUnit.SECONDS));
            long left = expiry.poll(1, TimeUnit.SECONDS);
            assertTrue(left >= 50 && left <= 60, "the interval left, not the original: " + left);
            assertNull(got.poll(1, TimeUnit.SECONDS), "the expired one is not sent");
        } finally {
            client.disconnect();
            client.close();
        }
    }
}
