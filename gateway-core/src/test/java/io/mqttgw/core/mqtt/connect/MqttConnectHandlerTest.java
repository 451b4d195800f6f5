package io.mqttgw.core.mqtt.connect;

import static io.mqttgw.core.testkit.ProtocolFixture.encode;
import static io.mqttgw.core.testkit.ProtocolFixture.release;
import static io.mqttgw.core.testkit.ProtocolFixture.send;
import static io.mqttgw.core.testkit.ProtocolFixture.written;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.codec.InvalidPacketHandler;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.mqtt.downlink.SubscriptionMatcher;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.connection.KeepAliveWheel;
import io.mqttgw.core.pipeline.ChannelErrorHandler;
import io.mqttgw.core.pipeline.DeviceChannelInitializer;
import io.mqttgw.core.pipeline.DeviceSocketHandler;
import io.mqttgw.core.pipeline.HandlerNames;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.mqttgw.core.testkit.ProtocolFixture.ManualAuthenticator;
import io.mqttgw.core.spi.AuthRequest;
import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.spi.AuthResult;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.testkit.TestPki;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.netty.util.concurrent.AbstractScheduledEventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MqttConnectHandlerTest {
    @TempDir
    Path dir;

    private EmbeddedChannel ch;
    private EmbeddedChannel other;

    @AfterEach
    void releaseChannels() {
        if (ch != null) {
            ch.finishAndReleaseAll();
        }
        if (other != null) {
            other.finishAndReleaseAll();
        }
    }

    private static MqttConnectMessage connect(String clientId) {
        return MqttMessageBuilders.connect().clientId(clientId).cleanSession(true).keepAlive(60).build();
    }

    private static MqttPublishMessage publish(String topic, MqttQoS qos, int packetId) {
        return MqttMessageBuilders.publish().topicName(topic).qos(qos).messageId(packetId)
                .payload(Unpooled.copiedBuffer("p" + packetId, StandardCharsets.UTF_8)).build();
    }

    private static MqttMessage pingreq() {
        return MqttMessage.PINGREQ;
    }

    /** The only packet written, which must be a CONNACK; returns its code. */
    private static MqttConnectReturnCode onlyConnAck(EmbeddedChannel ch) {
        List<MqttMessage> out = written(ch);
        try {
            assertEquals(1, out.size(), "packets written: " + out);
            MqttConnAckMessage ack = assertInstanceOf(MqttConnAckMessage.class, out.get(0));
            assertFalse(ack.variableHeader().isSessionPresent());
            return ack.variableHeader().connectReturnCode();
        } finally {
            release(out);
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    @Test
    void acceptsConnectRegistersSessionAndInstallsSessionHandlers() {
        ProtocolFixture f = ProtocolFixture.create(dir);
        ch = f.deviceChannel();
        send(ch, connect("dev-1"));

        ManualAuthenticator.Call call = f.auth.next();
        assertEquals("dev-1", call.request().clientId());
        assertEquals("tcp", call.request().listener());
        assertNull(call.request().certificate());
        assertFalse(ch.config().isAutoRead(), "reading pauses while the authenticator decides");
        assertNull(ch.readOutbound(), "no CONNACK before the authenticator answers");
        assertNull(f.registry.find("dev-1"));

        call.answer().complete(AuthResult.ALLOWED);

        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, onlyConnAck(ch));
        assertTrue(ch.isActive());
        assertTrue(ch.config().isAutoRead(), "reading resumes after CONNACK");
        assertSame(ch, f.registry.find("dev-1"));
        Route route = f.routes.lookup("dev-1").toCompletableFuture().join().orElseThrow();
        assertEquals("test-node", route.nodeId());
        ConnectionContext context = ConnectionContext.of(ch);
        assertTrue(context.sessionOpen());
        assertEquals("dev-1", context.clientId());
        assertEquals(route, context.route());

        ChannelPipeline p = ch.pipeline();
        assertNull(p.get(HandlerNames.CONNECT), "the CONNECT phase removed itself");
        // one handler for the established session; the invalid-packet and error handlers' work is its own now
        assertEquals(List.of(HandlerNames.SOCKET, HandlerNames.PACKET_DECODER, HandlerNames.OUTBOUND,
                HandlerNames.SESSION),
                p.names().stream().filter(n -> !n.startsWith("DefaultChannelPipeline$")).toList());
        assertTrue(KeepAliveWheel.watched(ch), "keepalive 60: the loop's wheel checks it");
        assertEquals(1.0, f.metrics.connects(MqttConnectReturnCode.CONNECTION_ACCEPTED));

        // the session handlers answer now
        send(ch, pingreq());
        List<MqttMessage> out = written(ch);
        assertEquals(1, out.size());
        assertEquals(MqttMessageType.PINGRESP, out.get(0).fixedHeader().messageType());
    }

    @Test
    void watchesNoKeepAliveWhenKeepAliveIsZero() {
        ProtocolFixture f = ProtocolFixture.builder(dir).allowing().build();
        ch = f.deviceChannel();
        send(ch, MqttMessageBuilders.connect().clientId("dev-1").cleanSession(true).keepAlive(0).build());

        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, onlyConnAck(ch));
        assertFalse(KeepAliveWheel.watched(ch), "no keepalive check");
        assertNotNull(ch.pipeline().get(HandlerNames.SESSION));
    }

    @Test
    void refusesWithNotAuthorizedClosesAndCountsConnectRefused() {
        ProtocolFixture f = ProtocolFixture.create(dir);
        ch = f.deviceChannel();
        send(ch, connect("dev-1"));

        f.auth.next().answer().complete(AuthResult.deny(AuthResult.Decision.NOT_AUTHORIZED));

        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED, onlyConnAck(ch));
        assertFalse(ch.isOpen(), "closed after the refusing CONNACK");
        assertEquals(DisconnectReason.CONNECT_REFUSED, ConnectionContext.of(ch).closeReason());
        assertEquals(1.0, f.metrics.disconnects(DisconnectReason.CONNECT_REFUSED));
        assertEquals(1.0, f.metrics.connects(MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED));
        assertEquals(0, f.registry.size());
        assertTrue(f.routes.lookup("dev-1").toCompletableFuture().join().isEmpty());
        assertFalse(ConnectionContext.of(ch).sessionOpen());
    }

    @Test
    void refusesBadCredentialsWithBadUserNameOrPassword() {
        ProtocolFixture f = ProtocolFixture.create(dir);
        ch = f.deviceChannel();
        send(ch, MqttMessageBuilders.connect().clientId("dev-1").cleanSession(true).hasUser(true)
                .username("u").hasPassword(true).password("secret".getBytes(StandardCharsets.UTF_8)).build());

        AuthRequest request = f.auth.peekRequest();
        assertEquals("u", request.username());
        assertArrayEquals("secret".getBytes(StandardCharsets.UTF_8), request.password());
        f.auth.next().answer().complete(AuthResult.deny(AuthResult.Decision.BAD_CREDENTIALS));

        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_BAD_USER_NAME_OR_PASSWORD, onlyConnAck(ch));
        assertFalse(ch.isOpen());
    }

    @Test
    void answersServerUnavailableWhenTheAuthenticatorDoesNotAnswerInTime() {
        ProtocolFixture f = ProtocolFixture.create(dir, "auth.timeout", "50ms");
        ch = f.deviceChannel();
        send(ch, connect("dev-1"));
        ManualAuthenticator.Call call = f.auth.next();

        ch.advanceTimeBy(40, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertNull(ch.readOutbound(), "still waiting within auth.timeout");
        assertTrue(ch.isOpen());

        ch.advanceTimeBy(20, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE, onlyConnAck(ch));
        assertFalse(ch.isOpen());
        assertEquals(1.0, f.metrics.disconnects(DisconnectReason.CONNECT_REFUSED));

        // a late answer changes nothing
        call.answer().complete(AuthResult.ALLOWED);
        ch.runPendingTasks();
        assertNull(ch.readOutbound());
        assertNull(f.registry.find("dev-1"));
        assertEquals(0.0, f.metrics.connects(MqttConnectReturnCode.CONNECTION_ACCEPTED));
    }

    @Test
    void answersServerUnavailableWhenTheAuthenticatorFailsOrThrows() {
        ProtocolFixture f = ProtocolFixture.create(dir);
        ch = f.deviceChannel();
        send(ch, connect("dev-1"));
        f.auth.next().answer().completeExceptionally(new IllegalStateException("directory down"));
        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE, onlyConnAck(ch));
        assertFalse(ch.isOpen());

        assertEquals(1.0, f.metrics.disconnects(DisconnectReason.CONNECT_REFUSED));

        ProtocolFixture throwing = ProtocolFixture.builder(dir).authAnswers(r -> {
            throw new IllegalStateException("bug in the authenticator");
        }).build();
        other = throwing.deviceChannel();
        send(other, connect("dev-2"));
        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE, onlyConnAck(other));
        assertFalse(other.isOpen());
        assertEquals(1.0, throwing.metrics.disconnects(DisconnectReason.CONNECT_REFUSED));
    }

    @Test
    void decidesOnTheChannelsEventLoopWhenTheAuthenticatorAnswersOnAnotherThread() throws Exception {
        ProtocolFixture f = ProtocolFixture.create(dir);
        OwnedExecutor loop = new OwnedExecutor();
        DeviceChannelInitializer sessionPhase = new DeviceChannelInitializer("tcp", f.services, null, null, false);
        ch = new EmbeddedChannel();
        ch.attr(ConnectionContext.KEY).set(new ConnectionContext("tcp"));
        ch.pipeline().addLast(HandlerNames.SOCKET, new DeviceSocketHandler(f.services));
        ch.pipeline().addLast(HandlerNames.PACKET_DECODER, new MqttDecoder());
        ch.pipeline().addLast(HandlerNames.OUTBOUND, MqttEncoder.INSTANCE);
        ch.pipeline().addLast(HandlerNames.INVALID_PACKET, InvalidPacketHandler.INSTANCE);
        // the CONNECT phase runs on an executor that only this test thread is "in"
        ch.pipeline().addLast(loop, HandlerNames.CONNECT,
                new MqttConnectHandler(f.services, sessionPhase, HandlerNames.CONNECT));
        ch.pipeline().addLast(HandlerNames.ERRORS, ChannelErrorHandler.INSTANCE);

        send(ch, connect("dev-1"));
        ManualAuthenticator.Call call = f.auth.next();

        Thread answering = new Thread(() -> call.answer().complete(AuthResult.ALLOWED), "auth-answer");
        answering.start();
        answering.join(1000);
        assertFalse(answering.isAlive());

        assertNull(ch.readOutbound(), "nothing decided on the authenticator's thread");
        assertNull(f.registry.find("dev-1"), "nothing registered on the authenticator's thread");
        assertEquals(1, loop.pending(), "the decision was handed to the channel's executor");

        loop.runPending();
        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, onlyConnAck(ch));
        assertSame(ch, f.registry.find("dev-1"));
        assertNull(ch.pipeline().get(HandlerNames.CONNECT));
    }

    @Test
    void replaysPacketsSentBeforeConnackInOrderAfterAcceptance() {
        ProtocolFixture f = ProtocolFixture.builder(dir).sinkAccepting().build();
        ch = f.deviceChannel();
        // CONNECT and the packets after it arrive in one read, before the authenticator answered
        ch.writeInbound(encode(connect("dev-1"), pingreq(),
                MqttMessageBuilders.subscribe().messageId(7).addSubscription(MqttQoS.AT_LEAST_ONCE, "cmd/#").build(),
                publish("up/1", MqttQoS.AT_LEAST_ONCE, 9)));
        send(ch, pingreq());
        assertNull(ch.readOutbound(), "nothing answered before CONNACK");
        assertEquals(0, f.sink.size(), "early PUBLISH held, not yet handed to the sink");

        f.auth.next().answer().complete(AuthResult.ALLOWED);

        List<MqttMessage> out = written(ch);
        try {
            assertEquals(List.of(MqttMessageType.CONNACK, MqttMessageType.PINGRESP, MqttMessageType.SUBACK,
                    MqttMessageType.PUBACK, MqttMessageType.PINGRESP),
                    out.stream().map(m -> m.fixedHeader().messageType()).toList());
            assertEquals(7, ((MqttMessageIdVariableHeader) out.get(2).variableHeader()).messageId());
            assertEquals(9, ((MqttMessageIdVariableHeader) out.get(3).variableHeader()).messageId());
        } finally {
            release(out);
        }
        assertEquals("up/1", f.sink.next().message().topic());
        assertEquals(1, SubscriptionMatcher.grantedQos(ConnectionContext.of(ch).subscriptions(), "cmd/x"));
    }

    @Test
    void servesAnImmediateAnswerInTheSameReadWithoutPausingReading() {
        ProtocolFixture f = ProtocolFixture.builder(dir).allowing().sinkAccepting().build();
        int[] pauses = {0};
        ch = new EmbeddedChannel(new DeviceChannelInitializer("tcp", f.services, null, null, false)) {
            private io.netty.channel.DefaultChannelConfig config;

            @Override
            public io.netty.channel.ChannelConfig config() {
                if (config == null) {
                    config = new io.netty.channel.DefaultChannelConfig(this) {
                        @Override
                        public io.netty.channel.ChannelConfig setAutoRead(boolean autoRead) {
                            pauses[0] += autoRead ? 0 : 1;
                            return super.setAutoRead(autoRead);
                        }
                    };
                }
                return config;
            }
        };
        // a certificate identity answers at once: no pause and resume (two epoll_ctl calls), and the packets that
        // came with CONNECT still go, in order, to the session handlers installed by the acceptance
        ch.writeInbound(encode(connect("dev-1"), pingreq(),
                MqttMessageBuilders.subscribe().messageId(7).addSubscription(MqttQoS.AT_LEAST_ONCE, "cmd/#").build(),
                publish("up/1", MqttQoS.AT_LEAST_ONCE, 9)));

        List<MqttMessage> out = written(ch);
        try {
            assertEquals(List.of(MqttMessageType.CONNACK, MqttMessageType.PINGRESP, MqttMessageType.SUBACK,
                    MqttMessageType.PUBACK), out.stream().map(m -> m.fixedHeader().messageType()).toList());
        } finally {
            release(out);
        }
        assertEquals(0, pauses[0], "reading was never paused");
        assertTrue(ch.config().isAutoRead());
        assertEquals("up/1", f.sink.next().message().topic());
        assertNull(ch.pipeline().get(HandlerNames.CONNECT));
    }

    @Test
    void waitsForAMinimalStageEvenWhenItIsCompleteAlready() {
        // a minimal stage answers no isDone() (it throws): the handler must take the waiting path for it
        ProtocolFixture f = ProtocolFixture.builder(dir)
                .authAnswers(r -> CompletableFuture.completedFuture(AuthResult.ALLOWED).minimalCompletionStage())
                .build();
        ch = f.deviceChannel();
        send(ch, connect("dev-1"));
        ch.runPendingTasks();

        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, onlyConnAck(ch));
        assertTrue(ch.config().isAutoRead(), "reading resumes after CONNACK");
        assertSame(ch, f.registry.find("dev-1"));
    }

    @Test
    void refusesAnImmediateDenialAndPassesNothingAfterIt() {
        ProtocolFixture f = ProtocolFixture.builder(dir).authAnswers(r -> CompletableFuture.completedFuture(
                AuthResult.deny(AuthResult.Decision.NOT_AUTHORIZED))).build();
        ch = f.deviceChannel();
        ch.writeInbound(encode(connect("dev-1"), publish("up/1", MqttQoS.AT_LEAST_ONCE, 9)));

        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED, onlyConnAck(ch));
        assertFalse(ch.isActive());
        assertEquals(0, f.sink.size(), "the PUBLISH behind a refused CONNECT reaches no sink");
        assertNull(f.registry.find("dev-1"));
    }

    @Test
    void holdsEveryPacketSentBeforeConnackUntilAccepted() {
        ProtocolFixture f = ProtocolFixture.builder(dir).sinkAccepting().build();
        ch = f.deviceChannel();
        send(ch, connect("dev-1"));
        ManualAuthenticator.Call call = f.auth.next();
        for (int i = 1; i <= 20; i++) {
            send(ch, publish("up", MqttQoS.AT_MOST_ONCE, i));
        }
        assertTrue(ch.isOpen());
        assertEquals(0, f.sink.size(), "nothing reaches the sink before the authenticator allowed the device");

        call.answer().complete(AuthResult.ALLOWED);

        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, onlyConnAck(ch));
        assertEquals(20, f.sink.size());
        for (int i = 1; i <= 20; i++) {
            assertEquals("p" + i, new String(f.sink.next().message().payload(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void releasesHeldPacketsWhenTheConnectIsRefused() {
        ProtocolFixture f = ProtocolFixture.create(dir);
        ch = f.deviceChannel();
        ch.writeInbound(encode(connect("dev-1"), publish("up", MqttQoS.AT_LEAST_ONCE, 1),
                publish("up", MqttQoS.AT_LEAST_ONCE, 2)));

        f.auth.next().answer().complete(AuthResult.deny(AuthResult.Decision.NOT_AUTHORIZED));

        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED, onlyConnAck(ch));
        assertFalse(ch.isOpen());
        assertEquals(0, f.sink.size(), "held PUBLISHes of a refused device are dropped (the leak check sees them)");
    }

    @Test
    void closesWithProtocolViolationWhenAPacketReachesItBeforeTheDecision() {
        // with a bare Netty decoder (no flow control) nothing holds the packets that follow CONNECT: they must not slip
        // past
        ProtocolFixture f = ProtocolFixture.builder(dir).sinkAccepting().build();
        DeviceChannelInitializer sessionPhase = new DeviceChannelInitializer("tcp", f.services, null, null, false);
        ch = new EmbeddedChannel();
        ch.attr(ConnectionContext.KEY).set(new ConnectionContext("tcp"));
        ch.pipeline().addLast(HandlerNames.SOCKET, new DeviceSocketHandler(f.services));
        ch.pipeline().addLast(HandlerNames.PACKET_DECODER, new MqttDecoder());
        ch.pipeline().addLast(HandlerNames.OUTBOUND, MqttEncoder.INSTANCE);
        ch.pipeline().addLast(HandlerNames.INVALID_PACKET, InvalidPacketHandler.INSTANCE);
        ch.pipeline().addLast(HandlerNames.CONNECT, new MqttConnectHandler(f.services, sessionPhase,
                HandlerNames.CONNECT));
        ch.pipeline().addLast(HandlerNames.ERRORS, ChannelErrorHandler.INSTANCE);

        send(ch, connect("dev-1"));
        ManualAuthenticator.Call call = f.auth.next();
        send(ch, publish("up", MqttQoS.AT_LEAST_ONCE, 1));

        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.PROTOCOL_VIOLATION, ConnectionContext.of(ch).closeReason());
        call.answer().complete(AuthResult.ALLOWED);
        assertNull(ch.readOutbound(), "no CONNACK on a closed connection");
        assertEquals(0, f.sink.size());
        assertNull(f.registry.find("dev-1"));
    }

    @Test
    void closesWhenTheFirstPacketIsNotConnect() {
        ProtocolFixture f = ProtocolFixture.create(dir);
        ch = f.deviceChannel();
        send(ch, publish("up", MqttQoS.AT_LEAST_ONCE, 1));

        assertFalse(ch.isOpen());
        assertNull(ch.readOutbound());
        assertEquals(DisconnectReason.FIRST_PACKET_NOT_CONNECT, ConnectionContext.of(ch).closeReason());
        assertEquals(1.0, f.metrics.disconnects(DisconnectReason.FIRST_PACKET_NOT_CONNECT));
        assertTrue(f.auth.requests.isEmpty());
        assertEquals(0, f.sink.size());
    }

    @Test
    void closesWithConnectTimeoutWhenNoConnectArrives() {
        ProtocolFixture f = ProtocolFixture.create(dir, "mqtt.connect-timeout", "2s");
        ch = f.deviceChannel();
        assertEquals(1, f.metrics.channelsOpen());

        ch.advanceTimeBy(1900, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertTrue(ch.isOpen());

        ch.advanceTimeBy(200, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.CONNECT_TIMEOUT, ConnectionContext.of(ch).closeReason());
        assertEquals(1.0, f.metrics.disconnects(DisconnectReason.CONNECT_TIMEOUT));
        assertEquals(0, f.metrics.channelsOpen());
    }

    @Test
    void connectStopsTheConnectTimer() {
        ProtocolFixture f = ProtocolFixture.create(dir, "mqtt.connect-timeout", "2s", "auth.timeout", "1m");
        ch = f.deviceChannel();
        send(ch, connect("dev-1"));
        ch.advanceTimeBy(5, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertTrue(ch.isOpen(), "the connect timer ends with CONNECT, not with CONNACK");

        f.auth.next().answer().complete(AuthResult.ALLOWED);
        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, onlyConnAck(ch));
        ch.advanceTimeBy(5, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertTrue(ch.isOpen());
    }

    @Test
    void rejectsAnEmptyClientIdWithoutCleanSession() {
        ProtocolFixture f = ProtocolFixture.create(dir);
        ch = f.deviceChannel();
        send(ch, MqttMessageBuilders.connect().clientId("").cleanSession(false).keepAlive(60).build());

        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED, onlyConnAck(ch));
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.CONNECT_REFUSED, ConnectionContext.of(ch).closeReason());
        assertTrue(f.auth.requests.isEmpty(), "refused before asking the authenticator");
    }

    @Test
    void assignsAClientIdToAnEmptyOneWithCleanSession() {
        ProtocolFixture f = ProtocolFixture.create(dir);
        ch = f.deviceChannel();
        send(ch, MqttMessageBuilders.connect().clientId("").cleanSession(true).keepAlive(60).build());
        ManualAuthenticator.Call call = f.auth.next();
        String assigned = call.request().clientId();
        assertTrue(assigned.startsWith("auto-test-node-"), assigned);

        call.answer().complete(AuthResult.ALLOWED);
        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, onlyConnAck(ch));
        assertEquals(assigned, ConnectionContext.of(ch).clientId());
        assertSame(ch, f.registry.find(assigned));
    }

    @Test
    void refusesAClientIdLongerThanMaxClientIdLength() {
        ProtocolFixture f = ProtocolFixture.builder(dir).with("mqtt.max-client-id-length", "8").allowing().build();
        ch = f.deviceChannel();
        send(ch, connect("a-client-id-of-28-characters"));

        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED, onlyConnAck(ch),
                "mqtt.max-client-id-length promises CONNACK identifier rejected for longer client ids");
        assertFalse(ch.isOpen());
        assertNull(f.registry.find("a-client-id-of-28-characters"));
    }

    @Test
    void closesWithInvalidTopicWhenTheWillTopicHasWildcards() {
        ProtocolFixture f = ProtocolFixture.create(dir);
        ch = f.deviceChannel();
        // CONNECT, clean session, will QoS 1 on "status/+" (Netty's encoder refuses to write it, so by hand)
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {0x10, 33, 0, 4, 'M', 'Q', 'T', 'T', 4, 0x0E, 0, 60,
                0, 5, 'd', 'e', 'v', '-', '1', 0, 8, 's', 't', 'a', 't', 'u', 's', '/', '+', 0, 4, 'g', 'o', 'n',
                        'e'}));

        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.INVALID_TOPIC, ConnectionContext.of(ch).closeReason());
        assertTrue(f.auth.requests.isEmpty());
    }

    @Test
    void keepsTheWillOfAnAcceptedSession() {
        ProtocolFixture f = ProtocolFixture.builder(dir).allowing().build();
        ch = f.deviceChannel();
        send(ch, MqttMessageBuilders.connect().clientId("dev-1").cleanSession(true).willFlag(true)
                .willTopic("status/dev-1").willMessage("gone").willQoS(MqttQoS.AT_LEAST_ONCE).willRetain(true)
                .build());
        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, onlyConnAck(ch));

        var will = ConnectionContext.of(ch).will();
        assertNotNull(will);
        assertEquals("dev-1", will.clientId());
        assertEquals("status/dev-1", will.topic());
        assertEquals(1, will.qos());
        assertTrue(will.retain());
        assertArrayEquals("gone".getBytes(StandardCharsets.UTF_8), will.payload());
    }

    @Test
    void aSecondConnectionWithTheSameClientIdTakesOver() {
        ProtocolFixture f = ProtocolFixture.builder(dir).allowing().build();
        other = f.deviceChannel();
        send(other, connect("dev-1"));
        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, onlyConnAck(other));
        Route first = ConnectionContext.of(other).route();

        ch = f.deviceChannel();
        send(ch, connect("dev-1"));
        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, onlyConnAck(ch));
        Route second = ConnectionContext.of(ch).route();
        assertTrue(second.epoch() > first.epoch());

        other.runPendingTasks(); // the close was handed to the older channel's event loop
        assertFalse(other.isOpen(), "the older connection is closed");
        assertTrue(ch.isOpen());
        assertEquals(DisconnectReason.TAKEOVER, ConnectionContext.of(other).closeReason());
        assertEquals(1.0, f.metrics.disconnects(DisconnectReason.TAKEOVER));
        assertEquals(1.0, f.counter("mqttgw.takeovers"));
        assertSame(ch, f.registry.find("dev-1"), "the registry keeps the newer channel");
        assertEquals(1, f.registry.size());
        assertEquals(second, f.routes.lookup("dev-1").toCompletableFuture().join().orElseThrow(),
                "the older connection's route delete does not remove the newer route");
    }

    @Test
    void refusesAClientIdOtherThanTheCertificateIdentityUnderMustMatch() {
        ProtocolFixture f = ProtocolFixture.create(dir);
        X509Certificate cert = TestPki.create(dir.resolve("pki")).device("dev-1").getCertificate();
        ch = f.deviceChannel();
        ConnectionContext.of(ch).verifiedCertificate(cert, "dev-1");

        send(ch, connect("dev-2"));

        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED, onlyConnAck(ch));
        assertFalse(ch.isOpen());
        assertTrue(f.auth.requests.isEmpty());
        assertNull(f.registry.find("dev-2"));
    }

    @Test
    void acceptsTheCertificateIdentityAsClientIdUnderMustMatch() {
        ProtocolFixture f = ProtocolFixture.create(dir);
        X509Certificate cert = TestPki.create(dir.resolve("pki")).device("dev-1").getCertificate();
        ch = f.deviceChannel();
        ConnectionContext.of(ch).verifiedCertificate(cert, "dev-1");

        send(ch, connect("dev-1"));
        ManualAuthenticator.Call call = f.auth.next();
        assertEquals("dev-1", call.request().certificateIdentity());
        assertSame(cert, call.request().certificate());
        call.answer().complete(AuthResult.ALLOWED);

        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, onlyConnAck(ch));
        assertSame(ch, f.registry.find("dev-1"));
    }

    @Test
    void usesTheCertificateIdentityAsClientIdUnderUseIdentity() {
        ProtocolFixture f = ProtocolFixture.create(dir, "identity.client-id-policy", "use-identity");
        X509Certificate cert = TestPki.create(dir.resolve("pki")).device("dev-1").getCertificate();
        ch = f.deviceChannel();
        ConnectionContext.of(ch).verifiedCertificate(cert, "dev-1");

        send(ch, connect("whatever-the-device-says"));
        ManualAuthenticator.Call call = f.auth.next();
        assertEquals("dev-1", call.request().clientId());
        call.answer().complete(AuthResult.ALLOWED);

        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, onlyConnAck(ch));
        assertEquals("dev-1", ConnectionContext.of(ch).clientId());
        assertSame(ch, f.registry.find("dev-1"));
        assertNull(f.registry.find("whatever-the-device-says"));
    }

    @Test
    void refusesACertificateWithoutIdentityAsNotAuthorized() {
        ProtocolFixture f = ProtocolFixture.create(dir);
        X509Certificate cert = TestPki.create(dir.resolve("pki")).device("dev-1").getCertificate();
        ch = f.deviceChannel();
        ConnectionContext.of(ch).verifiedCertificate(cert, null);

        send(ch, connect("dev-1"));

        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED, onlyConnAck(ch));
        assertFalse(ch.isOpen());
        assertTrue(f.auth.requests.isEmpty());
    }

    @Test
    void keepsReadingPausedWhenReplayedPublishesFillTheInflightWindow() {
        ProtocolFixture f = ProtocolFixture.create(dir, "mqtt.max-inflight-uplink", "4");
        ch = f.deviceChannel();
        send(ch, connect("dev-1"));
        ManualAuthenticator.Call call = f.auth.next();
        for (int i = 1; i <= 5; i++) {
            send(ch, publish("up", MqttQoS.AT_LEAST_ONCE, i));
        }

        call.answer().complete(AuthResult.ALLOWED);

        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, onlyConnAck(ch));
        assertFalse(ch.config().isAutoRead(),
                "four QoS 1 PUBLISHes wait for the sink with mqtt.max-inflight-uplink = 4: reading stays paused");
        assertEquals(4, f.sink.size(), "the fifth held PUBLISH waits until the window drains");

        f.sink.next().done().complete(null);
        assertFalse(ch.config().isAutoRead());
        f.sink.next().done().complete(null);
        assertTrue(ch.config().isAutoRead(), "half the window drained");
        assertEquals(3, f.sink.size(), "two waiting plus the fifth, released when reading resumed");
        List<MqttMessage> acks = written(ch);
        assertEquals(List.of(1, 2), acks.stream()
                .map(m -> ((MqttMessageIdVariableHeader) m.variableHeader()).messageId()).toList());
    }

    // ---------------------------------------------------------------------------------------------------------

    /**
     * An event executor that only the thread that created it is "in"; tasks handed to it from other threads wait
     * until the test runs them, so a test sees whether work was handed over or done on the calling thread.
     */
    static final class OwnedExecutor extends AbstractScheduledEventExecutor {
        private final Thread owner = Thread.currentThread();
        private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();

        @Override
        public boolean inEventLoop(Thread thread) {
            return thread == owner;
        }

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }

        int pending() {
            return tasks.size();
        }

        void runPending() {
            for (Runnable r = tasks.poll(); r != null; r = tasks.poll()) {
                r.run();
            }
        }

        @Override
        public boolean isShuttingDown() {
            return false;
        }

        @Override
        public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
            return terminationFuture();
        }

        @Override
        public Future<?> terminationFuture() {
            return ImmediateEventExecutor.INSTANCE.newSucceededFuture(null);
        }

        @Override
        @Deprecated
        public void shutdown() {
        }

        @Override
        public boolean isShutdown() {
            return false;
        }

        @Override
        public boolean isTerminated() {
            return false;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return false;
        }
    }

    @Test
    void givesTheSessionTheConfiguredAclWithTheDevicesOwnPrefix() {
        ProtocolFixture f = ProtocolFixture.builder(dir).with("acl.publish", "devices/{client-id}/#",
                "acl.subscribe", "devices/{client-id}/#").allowing().build();
        ch = f.deviceChannel();
        send(ch, connect("dev-1"));
        assertEquals(MqttConnectReturnCode.CONNECTION_ACCEPTED, onlyConnAck(ch));
        TopicAcl acl = ConnectionContext.of(ch).acl();
        assertSame(f.config.acl().defaults(), acl, "every device shares the configured ACL");
        assertTrue(acl.mayPublish("dev-1", "devices/dev-1/telemetry"));
        assertFalse(acl.mayPublish("dev-1", "devices/dev-2/telemetry"));
    }

    @Test
    void takesTheAclFromTheAuthenticationAnswer() {
        ProtocolFixture f = ProtocolFixture.builder(dir).authAnswers(r -> CompletableFuture.completedFuture(
                new AuthResult(AuthResult.Decision.ALLOW,
                        java.util.Map.of(AuthResult.ACL_PUBLISH, "tenants/acme/{client-id}/#")))).build();
        ch = f.deviceChannel();
        send(ch, connect("dev-1"));
        TopicAcl acl = ConnectionContext.of(ch).acl();
        assertTrue(acl.mayPublish("dev-1", "tenants/acme/dev-1/up"));
        assertFalse(acl.mayPublish("dev-1", "devices/dev-1/up"));
        assertTrue(acl.maySubscribe("dev-1", "anything/#"), "subscribe keeps the configured rule (all, here)");
    }

    @Test
    void refusesAWillOutsideTheAcl() {
        ProtocolFixture f = ProtocolFixture.builder(dir).with("acl.publish", "devices/{client-id}/#").allowing()
                .build();
        ch = f.deviceChannel();
        send(ch, MqttMessageBuilders.connect().clientId("dev-1").cleanSession(true).keepAlive(60).willFlag(true)
                .willTopic("devices/dev-2/status").willMessage("gone".getBytes(StandardCharsets.UTF_8))
                .willQoS(MqttQoS.AT_LEAST_ONCE)
                .protocolVersion(MqttVersion.MQTT_3_1_1).build());
        assertEquals(MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED, onlyConnAck(ch));
        assertEquals(1.0, f.metrics.aclDenials(true));
    }
}
