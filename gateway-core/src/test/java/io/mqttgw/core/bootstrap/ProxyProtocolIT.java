package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.core.tls.TlsFailureReason;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Behind an L4 balancer: the PROXY header's source is the device's address in routes; only trusted proxies. */
class ProxyProtocolIT {
    @TempDir
    Path dir;

    static byte[] v1(String sourceIp, int sourcePort) {
        return ("PROXY TCP4 " + sourceIp + " 10.0.0.1 " + sourcePort + " 8883\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** A PROXY v2 header for TCP over IPv4. */
    static byte[] v2(int[] sourceIp, int sourcePort) {
        byte[] header = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A, 0x21, 0x11, 0x00, 12,
            (byte) sourceIp[0], (byte) sourceIp[1], (byte) sourceIp[2], (byte) sourceIp[3], 10, 0, 0, 1,
            (byte) (sourcePort >> 8), (byte) sourcePort, 0x22, (byte) 0xB3};
        return header;
    }

    static Route routeOf(Gateway gateway, String clientId) throws Exception {
        long deadline = System.currentTimeMillis() + 5000;
        Optional<Route> route;
        do {
            route = gateway.routes().lookup(clientId).toCompletableFuture().get(1, TimeUnit.SECONDS);
        } while (route.isEmpty() && System.currentTimeMillis() < deadline && sleep());
        return route.orElseThrow();
    }

    static boolean sleep() throws InterruptedException {
        Thread.sleep(10);
        return true;
    }

    static boolean closedWithin(Socket socket, long millis) throws Exception {
        socket.setSoTimeout((int) millis);
        try (InputStream in = socket.getInputStream()) {
            return in.read() < 0;
        } catch (java.net.SocketException reset) {
            return true;
        }
    }

    @Test
    void takesTheDeviceAddressFromProxyV2BeforeTls() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).with("listener.tls.proxy-protocol", "true").start();
             Socket plain = new Socket("127.0.0.1", gateway.tlsPort())) {
            plain.getOutputStream().write(v2(new int[] {198, 51, 100, 23}, 40001));
            SSLSocket tls = (SSLSocket) pki.clientContext(pki.device("dev-behind"))
                    .getSocketFactory().createSocket(plain, "127.0.0.1", gateway.tlsPort(), true);
            tls.startHandshake();
            tls.getOutputStream().write(RawMqttConnection.connectPacket("dev-behind", 60, 4));
            assertEquals(0x20, tls.getInputStream().read(), "CONNACK");
            assertEquals("/198.51.100.23:40001", routeOf(gateway, "dev-behind").remoteAddress());
        }
    }

    @Test
    void takesTheDeviceAddressFromProxyV1OnTheTcpListener() throws Exception {
        try (Gateway gateway = TestGateway.tcp(dir).with("listener.tcp.proxy-protocol", "true").start();
             Socket s = new Socket("127.0.0.1", gateway.tcpPort())) {
            s.getOutputStream().write(v1("203.0.113.7", 51234));
            s.getOutputStream().write(RawMqttConnection.connectPacket("dev-v1", 60, 4));
            assertEquals(0x20, s.getInputStream().read(), "CONNACK");
            assertEquals("/203.0.113.7:51234", routeOf(gateway, "dev-v1").remoteAddress());
        }
    }

    @Test
    void closesConnectionsFromUntrustedAddressesAndWithoutAHeader() throws Exception {
        try (Gateway gateway = TestGateway.tcp(dir).with("listener.tcp.proxy-protocol", "true")
                .with("proxy-protocol.header-timeout", "300ms").start()) {
            try (Socket s = new Socket("127.0.0.1", gateway.tcpPort())) {
                s.getOutputStream().write(RawMqttConnection.connectPacket("dev-direct", 60, 4));
                assertTrue(closedWithin(s, 3000), "MQTT without the PROXY header is refused");
            }
            try (Socket s = new Socket("127.0.0.1", gateway.tcpPort())) {
                assertTrue(closedWithin(s, 3000), "a connection that sends no header is closed after the timeout");
            }
            long deadline = System.currentTimeMillis() + 3000;
            while (gateway.metrics().disconnects(DisconnectReason.PROXY_PROTOCOL_ERROR) < 2
                    && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(2.0, gateway.metrics().disconnects(DisconnectReason.PROXY_PROTOCOL_ERROR));
        }
        try (Gateway gateway = TestGateway.tcp(dir).with("listener.tcp.proxy-protocol", "true")
                .with("proxy-protocol.trusted-sources", "10.0.0.0/8").start();
             Socket s = new Socket("127.0.0.1", gateway.tcpPort())) {
            s.getOutputStream().write(v1("203.0.113.7", 51234));
            assertTrue(closedWithin(s, 3000), "127.0.0.1 is not a trusted balancer here");
            long deadline = System.currentTimeMillis() + 3000;
            while (gateway.metrics().disconnects(DisconnectReason.UNTRUSTED_PROXY) < 1
                    && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(1.0, gateway.metrics().disconnects(DisconnectReason.UNTRUSTED_PROXY));
        }
    }

    @Test
    void anUntrustedProxyOnTheTlsListenerIsCountedOnceAndNotAsATlsFailure() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = TestGateway.tls(pki, dir).with("listener.tls.proxy-protocol", "true")
                .with("proxy-protocol.trusted-sources", "10.0.0.0/8").start();
             Socket s = new Socket("127.0.0.1", gateway.tlsPort())) {
            s.getOutputStream().write(v1("203.0.113.7", 51234));
            assertTrue(closedWithin(s, 5000), "127.0.0.1 is not a trusted balancer here");
            long deadline = System.currentTimeMillis() + 5000;
            while (gateway.metrics().disconnects(DisconnectReason.UNTRUSTED_PROXY) < 1
                    && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(1.0, gateway.metrics().disconnects(DisconnectReason.UNTRUSTED_PROXY));
            // the TLS failure, when it was counted, followed in the same close on the event loop: long past by now
            Thread.sleep(300);
            for (TlsFailureReason reason : TlsFailureReason.values()) {
                assertEquals(0.0, gateway.metrics().tlsFailures(reason), reason.label());
            }
            assertEquals(0.0, gateway.metrics().disconnects(DisconnectReason.TLS_HANDSHAKE_FAILED));
        }
    }
}
