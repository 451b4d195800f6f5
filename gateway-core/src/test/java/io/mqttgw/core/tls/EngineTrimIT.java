package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hivemq.client.mqtt.mqtt3.Mqtt3BlockingClient;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.testkit.TestDevices;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.EventExecutor;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a device's TLS engine keeps after the handshake: not the device certificate, which Netty's
 * OpenSSL session would otherwise hold for the connection's life; not its own copies of the listener's protocols and
 * groups; and nothing left in the verifier-to-handler hand-over, after successful and refused handshakes alike. Real
 * mutual-TLS sockets against one gateway.
 */
class EngineTrimIT {
    @TempDir
    static Path dir;
    static TestPki pki;
    static Gateway gateway;

    @BeforeAll
    static void start() {
        pki = TestPki.create(dir.resolve("pki"));
        gateway = TestGateway.tls(pki, dir).start();
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    @Test
    void thisNettyVersionsSessionCanBeTrimmed() {
        // fails on a Netty upgrade that renamed the session's fields, instead of the memory quietly coming back
        assertTrue(EngineTrim.available());
    }

    @Test
    void dropsDeviceCertificateFromTlsSessionAndKeepsIdentity() throws Exception {
        Mqtt3BlockingClient device = TestDevices.mutualTls(pki, gateway.tlsPort(), "trim-1", pki.device("trim-1"))
                .buildBlocking();
        device.connect();
        try {
            Channel channel = gateway.registry().find("trim-1");
            assertNotNull(channel);
            SSLSession session = channel.eventLoop()
                    .submit(() -> channel.pipeline().get(SslHandler.class).engine().getSession())
                    .get(15, TimeUnit.SECONDS);
            assertThrows(SSLPeerUnverifiedException.class, session::getPeerCertificates);
            ConnectionContext context = ConnectionContext.of(channel);
            assertEquals("trim-1", context.certificateIdentity());
            assertTrue(context.hasVerifiedCertificate());
            assertEquals(32, context.certificateSha256().length);
        } finally {
            device.disconnect();
        }
    }

    @Test
    void establishedEnginesShareOneCopyOfTheProtocolsAndGroups() throws Exception {
        Mqtt3BlockingClient first = TestDevices.mutualTls(pki, gateway.tlsPort(), "share-1", pki.device("share-1"))
                .buildBlocking();
        Mqtt3BlockingClient second = TestDevices.mutualTls(pki, gateway.tlsPort(), "share-2", pki.device("share-2"))
                .buildBlocking();
        first.connect();
        second.connect();
        try {
            SSLEngine a = engineOf(gateway.registry().find("share-1"));
            SSLEngine b = engineOf(gateway.registry().find("share-2"));
            for (String name : new String[] {"enabledProtocols", "groups"}) {
                Field field = Class.forName("io.netty.handler.ssl.ReferenceCountedOpenSslEngine")
                        .getDeclaredField(name);
                field.setAccessible(true);
                assertSame(field.get(a), field.get(b), name + " is one object for both connections");
            }
            assertSame(a.getSession().getProtocol(), b.getSession().getProtocol(), "one protocol name for both");
            assertEquals(List.of(a.getEnabledProtocols()), List.of(b.getEnabledProtocols()));
            assertTrue(List.of(a.getEnabledProtocols()).contains("TLSv1.3"), "still reports what it was built with");
            assertThrows(UnsupportedOperationException.class, () -> a.setEnabledProtocols(new String[] {"TLSv1.2"}),
                    "the shared copy cannot be changed through one engine");
        } finally {
            first.disconnect();
            second.disconnect();
        }
    }

    private static SSLEngine engineOf(Channel channel) throws Exception {
        assertNotNull(channel);
        return channel.eventLoop().submit(() -> channel.pipeline().get(SslHandler.class).engine())
                .get(15, TimeUnit.SECONDS);
    }

    @Test
    void leavesNoHandOverEntryAfterAcceptedAndRefusedHandshakes() throws Exception {
        List<Mqtt3BlockingClient> accepted = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Mqtt3BlockingClient ok = TestDevices.mutualTls(pki, gateway.tlsPort(), "hand-" + i,
                    pki.device("hand-" + i)).buildBlocking();
            ok.connect();
            accepted.add(ok);
        }
        for (int i = 0; i < 2; i++) {
            Mqtt3BlockingClient expired = TestDevices.mutualTls(pki, gateway.tlsPort(), "late-" + i,
                    pki.expiredDevice("late-" + i)).buildBlocking();
            assertThrows(RuntimeException.class, expired::connect);
        }
        try {
            Channel channel = gateway.registry().find("hand-0");
            assertNotNull(channel);
            int loops = 0;
            for (EventExecutor loop : channel.eventLoop().parent()) {
                int left = loop.submit(VerifiedPeer::inFlight).get(15, TimeUnit.SECONDS);
                assertEquals(0, left, "hand-over entries left on " + loop);
                loops++;
            }
            assertTrue(loops > 0);
        } finally {
            accepted.forEach(Mqtt3BlockingClient::disconnect);
        }
    }
}
