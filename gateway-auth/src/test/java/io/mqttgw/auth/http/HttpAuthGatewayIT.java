package io.mqttgw.auth.http;

import static io.mqttgw.core.testkit.RawMqttConnection.packet;
import static io.mqttgw.core.testkit.RawMqttConnection.publishPacket;
import static io.mqttgw.core.testkit.RawMqttConnection.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import com.hivemq.client.mqtt.mqtt3.exceptions.Mqtt3ConnAckException;
import com.hivemq.client.mqtt.mqtt3.message.connect.connack.Mqtt3ConnAckReturnCode;
import io.mqttgw.auth.testkit.AuthServiceStub;
import io.mqttgw.auth.testkit.AuthServiceStub.Reply;
import io.mqttgw.auth.x509.Fingerprints;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.core.testkit.UncaughtExceptionsExtension;
import io.netty.pkitesting.X509Bundle;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Devices over mutual TLS through a gateway with {@code auth.provider: http} and a real HTTP auth service. */
class HttpAuthGatewayIT {
    /** The auth client's I/O threads and its timer: none may die unnoticed. */
    @RegisterExtension
    static final UncaughtExceptionsExtension UNCAUGHT = UncaughtExceptionsExtension.inThreads("auth-http");

    @TempDir
    static Path dir;
    static TestPki pki;
    static AuthServiceStub service;

    @BeforeAll
    static void start() throws Exception {
        pki = TestPki.create(dir.resolve("pki"));
        service = AuthServiceStub.start(call -> {
            if (call.uri().endsWith("/dev-denied")) {
                return Reply.status(403);
            }
            if (call.uri().endsWith("/dev-slow")) {
                return Reply.allow().after(5000);
            }
            if (call.uri().contains("/fleet-")) {
                return Reply.json("{\"allow\":true,\"attributes\":{\"tenant\":\"acme\","
                        + "\"acl.publish\":\"fleet/{client-id}/#\",\"acl.subscribe\":[\"fleet/{client-id}/#\"]}}");
            }
            return Reply.allow();
        });
    }

    @AfterAll
    static void stop() {
        if (service != null) {
            service.close();
        }
    }

    static TestGateway gateway(String name) {
        return TestGateway.tls(pki, dir.resolve(name)).with("auth.provider", "http")
                .with("auth.http.url", service.url("/devices/{client-id}"))
                .with("auth.timeout", "3s").with("auth.http.request-timeout", "500ms");
    }

    static String metrics(Gateway gateway) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + gateway.adminPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void aReloadAppliesTheAuthCacheTtlsAndNamesOtherAuthKeysForARestart() throws Exception {
        java.nio.file.Path file = java.nio.file.Files.createDirectories(dir.resolve("reload")).resolve("gateway.yaml");
        java.nio.file.Files.writeString(file, "auth.http.cache.allow-ttl: 5m\n");
        try (Gateway gateway = gateway("reload").startWithFile(file)) {
            java.nio.file.Files.writeString(file, "auth.http.cache.allow-ttl: 10s\nauth.http.cache.deny-ttl: 5s\n"
                    + "auth.http.cache.max-entries: 10\n");
            var report = gateway.reload("test").get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals("applied", report.outcome());
            assertEquals(java.util.Set.of("auth.http.cache.allow-ttl", "auth.http.cache.deny-ttl"),
                    java.util.Set.copyOf(report.applied()));
            assertEquals(java.util.List.of("auth.http.cache.max-entries"), report.restartRequired());
        }
    }

    @Test
    void aDeviceTheServiceAllowsConnectsAndTheServiceSeesItsCertificate() throws Exception {
        try (Gateway gateway = gateway("allow").start()) {
            X509Bundle cert = pki.device("dev-ok");
            Mqtt3BlockingClient c = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-ok", cert).buildBlocking();
            c.connect();
            c.disconnect();
            AuthServiceStub.Call call = service.calls().stream().filter(x -> x.uri().endsWith("/dev-ok"))
                    .findFirst().orElseThrow();
            assertTrue(call.body().contains("\"certificateIdentity\":\"dev-ok\""), call.body());
            assertTrue(call.body().contains("\"certificateFingerprint\":\""
                    + Fingerprints.sha256(cert.getCertificate()) + "\""), call.body());
            assertTrue(call.body().contains("\"listener\":\"tls\"") && call.body().contains("\"remoteAddress\":"
                    + "\"127.0.0.1:"), call.body());
            String m = metrics(gateway);
            assertTrue(m.contains("mqttgw_auth_results_total{node=\"test-node\",result=\"allow\","
                    + "source=\"service\"} 1.0"), m);
        }
    }

    @Test
    void aDeviceTheServiceDeniesIsRefusedNotAuthorized() {
        try (Gateway gateway = gateway("deny").start()) {
            Mqtt3BlockingClient c = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-denied").buildBlocking();
            Mqtt3ConnAckException e = assertThrows(Mqtt3ConnAckException.class, c::connect);
            assertEquals(Mqtt3ConnAckReturnCode.NOT_AUTHORIZED, e.getMqttMessage().getReturnCode());
        }
    }

    @Test
    void theAclOfTheAnswerReplacesTheDefaultAndRefusesAForeignTopic() throws Exception {
        try (Gateway gateway = gateway("acl").start();
             RawMqttConnection device = RawMqttConnection.tls(pki.clientContext(pki.device("fleet-7")),
                     gateway.tlsPort())) {
            assertEquals(0, device.connect("fleet-7", 30));
            device.send(publishPacket(0x32, utf8("fleet/fleet-7/telemetry"), 1, utf8("ok")));
            byte[] puback = device.readPacket();
            assertEquals(0x40, puback[0] & 0xF0, "PUBACK for a topic the answer allows");

            device.send(subscribePacket(2, "devices/fleet-7/commands"));
            byte[] suback = device.readPacket();
            assertEquals(0x90, suback[0] & 0xF0);
            assertEquals((byte) 0x80, suback[suback.length - 1], "the default ACL no longer applies");
            device.send(subscribePacket(3, "fleet/fleet-7/commands"));
            suback = device.readPacket();
            assertEquals(1, suback[suback.length - 1], "granted (QoS 1) within the answer's ACL");

            device.send(publishPacket(0x32, utf8("devices/fleet-7/telemetry"), 4, utf8("x")));
            assertTrue(device.closedWithin(3000), "a PUBLISH outside the answer's ACL closes the connection");
        }
    }

    @Test
    void aSlowServiceRefusesWithServerUnavailableByDefault() {
        try (Gateway gateway = gateway("slow-refuse").start()) {
            Mqtt3BlockingClient c = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-slow").buildBlocking();
            Mqtt3ConnAckException e = assertThrows(Mqtt3ConnAckException.class, c::connect);
            assertEquals(Mqtt3ConnAckReturnCode.SERVER_UNAVAILABLE, e.getMqttMessage().getReturnCode());
        }
    }

    @Test
    void aServiceThatIsDownRefusesEveryDeviceWithServerUnavailableWithoutBlockingAnEventLoop() throws Exception {
        int closedPort;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        // nothing listens there: every call fails; the event-loop guard checks no CONNECT waited for it on a loop
        try (Gateway gateway = TestGateway.tls(pki, dir.resolve("down")).with("auth.provider", "http")
                .with("auth.http.url", "http://127.0.0.1:" + closedPort + "/devices/{client-id}")
                .with("auth.timeout", "3s").with("auth.http.request-timeout", "500ms").start()) {
            for (int i = 0; i < 5; i++) {
                Mqtt3BlockingClient c = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-down-" + i).buildBlocking();
                Mqtt3ConnAckException e = assertThrows(Mqtt3ConnAckException.class, c::connect);
                assertEquals(Mqtt3ConnAckReturnCode.SERVER_UNAVAILABLE, e.getMqttMessage().getReturnCode());
            }
        }
    }

    @Test
    void aSlowServiceLetsAVerifiedDeviceInWhenThePolicySaysSo() {
        try (Gateway gateway = gateway("slow-allow").with("auth.http.on-failure", "allow-verified-certificate")
                .start()) {
            Mqtt3BlockingClient c = TestDevices.mutualTls(pki, gateway.tlsPort(), "dev-slow").buildBlocking();
            c.connect();
            c.disconnect();
        }
    }

    static byte[] subscribePacket(int packetId, String filter) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(packetId >> 8);
        body.write(packetId & 0xFF);
        byte[] f = utf8(filter);
        body.write(f.length >> 8);
        body.write(f.length & 0xFF);
        body.writeBytes(f);
        body.write(1);
        return packet(0x82, body.toByteArray());
    }
}
