package io.mqttgw.core.bootstrap;

import static io.mqttgw.core.bootstrap.DownlinkIT.post;
import static io.mqttgw.core.bootstrap.DownlinkIT.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.MqttGlobalPublishFilter;
import com.hivemq.client.mqtt.datatypes.MqttQos;
import com.hivemq.client.mqtt.mqtt3.Mqtt3AsyncClient;
import com.hivemq.client.mqtt.mqtt3.message.publish.Mqtt3Publish;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Persistent sessions (clean session 0) and retained downlink on one node with the embedded session store, over
 * mutual TLS with real MQTT clients. The Redis store across two nodes is tested in gateway-routing.
 */
class PersistentSessionIT {
    @TempDir
    Path dir;

    private static String outcome(CompletableFuture<HttpResponse<String>> answer) throws Exception {
        return answer.get(10, TimeUnit.SECONDS).body().trim();
    }

    private static void waitFor(List<?> list, int size) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (list.size() < size && System.currentTimeMillis() < deadline) {
            Thread.sleep(10);
        }
    }

    private static List<String> payloads(List<Mqtt3Publish> received) {
        return received.stream().map(p -> new String(p.getPayloadAsBytes(), StandardCharsets.UTF_8)).toList();
    }

    @Test
    void deliversCommandsQueuedWhileOfflineInOrderWhenThePersistentSessionResumes() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir).with("session.max-pending",
                "3").start()) {
            Mqtt3AsyncClient first = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-p").buildAsync();
            assertFalse(first.connectWith().cleanSession(false).send().join().isSessionPresent(), "a new session");
            first.subscribeWith().topicFilter("devices/dev-p/commands").qos(MqttQos.AT_LEAST_ONCE).send().join();
            first.disconnect().join();

            for (int i = 1; i <= 3; i++) {
                assertEquals("{\"outcome\":\"queued\"}", outcome(post(gateway,
                        "/downlink?client=dev-p&topic=devices/dev-p/commands&qos=1", "c" + i)));
            }
            assertEquals("{\"outcome\":\"queue_full\"}", outcome(post(gateway,
                    "/downlink?client=dev-p&topic=devices/dev-p/commands&qos=1", "c4")), "session.max-pending is 3");
            assertEquals("{\"outcome\":\"not_connected\"}", outcome(post(gateway,
                    "/downlink?client=dev-p&topic=devices/dev-p/commands&qos=0", "c5")), "QoS 0 is not kept");

            Mqtt3AsyncClient again = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-p").buildAsync();
            List<Mqtt3Publish> received = new CopyOnWriteArrayList<>();
            again.publishes(MqttGlobalPublishFilter.ALL, received::add);
            assertTrue(again.connectWith().cleanSession(false).send().join().isSessionPresent());
            waitFor(received, 3);
            assertEquals(List.of("c1", "c2", "c3"), payloads(received), "stored order, without subscribing again");

            // the subscription came back with the session: a live command reaches it too
            assertEquals("{\"outcome\":\"delivered\"}", outcome(post(gateway,
                    "/downlink?client=dev-p&topic=devices/dev-p/commands&qos=1", "live")));
            again.disconnect().join();

            Mqtt3AsyncClient clean = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-p").buildAsync();
            assertFalse(clean.connectWith().cleanSession(true).send().join().isSessionPresent(),
                    "clean session 1 discards the stored one");
            clean.disconnect().join();
            assertEquals("{\"outcome\":\"not_connected\"}", outcome(post(gateway,
                    "/downlink?client=dev-p&topic=devices/dev-p/commands&qos=1", "after")), "nothing is kept now");
            assertEquals(3.0, gateway.metrics().downlinkOutcomes(io.mqttgw.core.spi.DownlinkTarget.Outcome.QUEUED));
        }
    }

    @Test
    void resendsACommandInFlightToTheConnectionThatTakesThePersistentSessionOver() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir).start();
             RawMqttConnection old = RawMqttConnection.tls(pki.clientContext(pki.device("dev-t")),
                     gateway.tlsPort())) {
            assertEquals(0, old.connect("dev-t", 60, false)[3]);
            old.send(subscribe(1, "devices/dev-t/commands", 1));
            assertEquals(0x90, old.readPacket()[0] & 0xFF, "SUBACK");
            CompletableFuture<HttpResponse<String>> answer = post(gateway,
                    "/downlink?client=dev-t&topic=devices/dev-t/commands&qos=1", "reboot");
            assertEquals(0x32, old.readPacket()[0] & 0xFF, "PUBLISH QoS 1, never acknowledged");

            Mqtt3AsyncClient next = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-t").buildAsync();
            List<Mqtt3Publish> received = new CopyOnWriteArrayList<>();
            next.publishes(MqttGlobalPublishFilter.ALL, received::add);
            assertTrue(next.connectWith().cleanSession(false).send().join().isSessionPresent());
            assertEquals("{\"outcome\":\"queued\"}", outcome(answer), "kept when the old connection was closed");
            waitFor(received, 1);
            assertEquals(List.of("reboot"), payloads(received), "MQTT-4.4.0-1: sent again on the resumed session");
            next.disconnect().join();

            Mqtt3AsyncClient fresh = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-t").buildAsync();
            List<Mqtt3Publish> none = new CopyOnWriteArrayList<>();
            fresh.publishes(MqttGlobalPublishFilter.ALL, none::add);
            assertTrue(fresh.connectWith().cleanSession(false).send().join().isSessionPresent());
            Thread.sleep(300);
            assertEquals(List.of(), payloads(none), "acknowledged by the second connection, so gone");
            fresh.disconnect().join();
        }
    }

    @Test
    void sendsTheRetainedConfigToADeviceThatSubscribesWithAWildcardLater() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).withOperatorToken(dir)
                .with("acl.subscribe", "devices/{client-id}/#,fleet/+/config").start()) {
            assertEquals("{\"handedTo\":0,\"retained\":\"stored\"}", outcome(post(gateway,
                    "/downlink/broadcast?topic=fleet/g1/config&qos=1&retain=true", "cfg-7")));
            post(gateway, "/downlink/broadcast?topic=fleet/g2/config&qos=1&retain=true", "cfg-9").get(10,
                    TimeUnit.SECONDS);
            post(gateway, "/downlink/broadcast?topic=fleet/g2/other&qos=1&retain=true", "no").get(10,
                    TimeUnit.SECONDS);

            Mqtt3AsyncClient device = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-r").buildAsync();
            device.connect().join();
            List<Mqtt3Publish> received = new CopyOnWriteArrayList<>();
            device.subscribeWith().topicFilter("fleet/+/config").qos(MqttQos.AT_LEAST_ONCE).callback(received::add)
                    .send().join();
            waitFor(received, 2);
            Thread.sleep(200);
            assertEquals(List.of("cfg-7", "cfg-9"), payloads(received).stream().sorted().toList());
            assertTrue(received.stream().allMatch(Mqtt3Publish::isRetain), "MQTT-3.3.1-8: retain flag set");

            post(gateway, "/downlink/broadcast?topic=fleet/g1/config&qos=1&retain=true", "").get(10,
                    TimeUnit.SECONDS);
            Mqtt3AsyncClient later = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-r2").buildAsync();
            later.connect().join();
            List<Mqtt3Publish> afterDelete = new CopyOnWriteArrayList<>();
            later.subscribeWith().topicFilter("fleet/+/config").qos(MqttQos.AT_LEAST_ONCE)
                    .callback(afterDelete::add).send().join();
            waitFor(afterDelete, 1);
            Thread.sleep(200);
            assertEquals(List.of("cfg-9"), payloads(afterDelete), "an empty retained payload deleted g1's config");
            device.disconnect().join();
            later.disconnect().join();
        }
    }
}
