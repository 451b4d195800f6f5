package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.ControlledSink;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.paho.mqttv5.client.IMqttToken;
import org.eclipse.paho.mqttv5.client.MqttAsyncClient;
import org.eclipse.paho.mqttv5.client.MqttCallback;
import org.eclipse.paho.mqttv5.client.MqttClient;
import org.eclipse.paho.mqttv5.client.MqttConnectionOptions;
import org.eclipse.paho.mqttv5.client.MqttDisconnectResponse;
import org.eclipse.paho.mqttv5.client.persist.MemoryPersistence;
import org.eclipse.paho.mqttv5.common.MqttException;
import org.eclipse.paho.mqttv5.common.MqttMessage;
import org.eclipse.paho.mqttv5.common.packet.MqttProperties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The second, independent MQTT 5.0 client, Eclipse Paho mqttv5, over mutual TLS: session expiry, will delay, and the
 * server DISCONNECT reasons it reports (session taken over, server shutting down).
 */
class Mqtt5PahoIT {
    @TempDir
    static Path dir;
    static TestPki pki;
    static Gateway gateway;

    @BeforeAll
    static void start() {
        pki = TestPki.create(dir.resolve("pki"));
        gateway = TestGateway.tls(pki, dir.resolve("main")).with("uplink.sink", "controlled").start();
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    static MqttClient paho(Gateway g, String clientId) throws MqttException {
        return new MqttClient("ssl://127.0.0.1:" + g.tlsPort(), clientId, new MemoryPersistence());
    }

    static MqttConnectionOptions options(String clientId, boolean cleanStart, long expirySeconds) {
        MqttConnectionOptions o = new MqttConnectionOptions();
        o.setSocketFactory(pki.clientContext(pki.device(clientId)).getSocketFactory());
        o.setHttpsHostnameVerificationEnabled(false);
        o.setCleanStart(cleanStart);
        o.setSessionExpiryInterval(expirySeconds);
        o.setConnectionTimeout(15);
        return o;
    }

    /** A callback that completes {@code told} with the reason code of a server DISCONNECT. */
    static MqttCallback toldBy(CompletableFuture<Integer> told) {
        CompletableFuture<MqttDisconnectResponse> response = new CompletableFuture<>();
        response.thenAccept(r -> told.complete(r.getReturnCode()));
        return toldWith(response);
    }

    /** A callback that completes {@code told} with a server DISCONNECT as Paho reports it. */
    static MqttCallback toldWith(CompletableFuture<MqttDisconnectResponse> told) {
        return new MqttCallback() {
            @Override
            public void disconnected(MqttDisconnectResponse response) {
                told.complete(response);
            }

            @Override
            public void mqttErrorOccurred(MqttException exception) {
            }

            @Override
            public void messageArrived(String topic, MqttMessage message) {
            }

            @Override
            public void deliveryComplete(IMqttToken token) {
            }

            @Override
            public void connectComplete(boolean reconnect, String serverURI) {
            }

            @Override
            public void authPacketArrived(int reasonCode, MqttProperties properties) {
            }
        };
    }

    @Test
    void pahoResumesItsSessionWithinTheExpiryAndNotAfter() throws Exception {
        MqttClient c = paho(gateway, "paho-exp");
        assertFalse(c.connectWithResult(options("paho-exp", false, 2)).getSessionPresent());
        c.disconnect();
        assertTrue(c.connectWithResult(options("paho-exp", false, 2)).getSessionPresent(), "within 2 s");
        c.disconnect();
        Thread.sleep(3000);
        assertFalse(c.connectWithResult(options("paho-exp", false, 2)).getSessionPresent(), "after 2 s");
        c.disconnect();
        c.close();
    }

    @Test
    void pahoIsToldItsSessionWasTakenOver() throws Exception {
        CompletableFuture<Integer> told = new CompletableFuture<>();
        MqttClient first = paho(gateway, "paho-take");
        first.setCallback(toldBy(told));
        first.connect(options("paho-take", true, 0));
        MqttClient second = paho(gateway, "paho-take");
        second.connect(options("paho-take", true, 0));
        assertEquals(0x8E, told.get(15, TimeUnit.SECONDS));
        second.disconnect();
        second.close();
        first.close();
    }

    @Test
    void pahoReadsTheReasonStringOfAServerDisconnect() throws Exception {
        CompletableFuture<MqttDisconnectResponse> told = new CompletableFuture<>();
        MqttClient first = paho(gateway, "paho-why");
        first.setCallback(toldWith(told));
        first.connect(options("paho-why", true, 0));
        MqttClient second = paho(gateway, "paho-why");
        second.connect(options("paho-why", true, 0));
        MqttDisconnectResponse response = told.get(15, TimeUnit.SECONDS);
        assertEquals(0x8E, response.getReturnCode());
        assertEquals("takeover", response.getReasonString());
        second.disconnect();
        second.close();
        first.close();
    }

    @Test
    void pahoDisconnectingWithItsWillHasItPublishedAfterTheWillDelay() throws Exception {
        ControlledSink sink = ControlledSink.of(gateway);
        MqttAsyncClient c = new MqttAsyncClient("ssl://127.0.0.1:" + gateway.tlsPort(), "paho-will",
                new MemoryPersistence());
        MqttConnectionOptions o = options("paho-will", true, 60);
        o.setWill("devices/paho-will/status", new MqttMessage("gone".getBytes(StandardCharsets.UTF_8)));
        MqttProperties will = new MqttProperties();
        will.setWillDelayInterval(2L);
        o.setWillMessageProperties(will);
        c.connect(o).waitForCompletion(15_000);
        // reason 0x04: disconnect with will message
        c.disconnect(1000, null, null, 0x04, new MqttProperties()).waitForCompletion(15_000);
        long disconnectedAt = System.nanoTime();
        ControlledSink.Pending published = sink.next(15);
        assertEquals("devices/paho-will/status", published.message().topic());
        published.done().complete(null);
        assertTrue(System.nanoTime() - disconnectedAt >= TimeUnit.MILLISECONDS.toNanos(1500), "after the 2 s delay");
        c.close();
    }

    @Test
    void pahoIsToldTheServerIsShuttingDown() throws Exception {
        Gateway own = TestGateway.tls(pki, dir.resolve("own")).start();
        CompletableFuture<Integer> told = new CompletableFuture<>();
        MqttClient c = paho(own, "paho-down");
        try {
            c.setCallback(toldBy(told));
            c.connect(options("paho-down", true, 0));
            own.close();
            assertEquals(0x8B, told.get(15, TimeUnit.SECONDS));
        } finally {
            own.close();
            c.close(true);
        }
    }

    /**
     * The drain hands each close to the device's event loop. A loop busy with I/O when the node shuts its loops down
     * closes its channels before it runs its queued tasks, so the device must still have been told by then. The
     * loop is held reading the device's PUBLISH (spinning: a blocking call fails the test there) until its shutdown
     * has begun, or for a second when the shutdown waits for the drained devices.
     */
    @Test
    void pahoIsToldTheServerIsShuttingDownWhenItsEventLoopIsBusy() throws Exception {
        Gateway own = TestGateway.tls(pki, dir.resolve("own-busy")).start();
        CompletableFuture<Integer> told = new CompletableFuture<>();
        MqttClient c = paho(own, "paho-busy");
        try {
            c.setCallback(toldBy(told));
            c.connect(options("paho-busy", true, 0));
            Channel ch = own.registry().find("paho-busy");
            EventLoop loop = ch.eventLoop();
            CountDownLatch reading = new CountDownLatch(1);
            loop.submit(() -> ch.pipeline().addFirst("busy-read", new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    reading.countDown();
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                    while (!loop.isShuttingDown() && System.nanoTime() < until) {
                        // busy, as a loaded loop is
                    }
                    ctx.fireChannelRead(msg);
                }
            })).get(15, TimeUnit.SECONDS);
            c.publish("devices/paho-busy/telemetry", "x".getBytes(StandardCharsets.UTF_8), 0, false);
            assertTrue(reading.await(15, TimeUnit.SECONDS));
            own.close();
            assertEquals(0x8B, told.get(15, TimeUnit.SECONDS));
        } finally {
            own.close();
            c.close(true);
        }
    }
}
