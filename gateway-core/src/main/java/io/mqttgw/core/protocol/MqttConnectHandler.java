package io.mqttgw.core.protocol;

import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.core.identity.IdentityRules;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.AuthRequest;
import io.mqttgw.core.spi.AuthResult;
import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.core.spi.SessionStore.StoredMessage;
import io.mqttgw.core.spi.SessionStore.StoredSession;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.UplinkMessage;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.handler.codec.mqtt.MqttConnectPayload;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;
import io.netty.handler.codec.mqtt.MqttConnectVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttVersion;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The CONNECT phase of one connection: waits a bounded time for CONNECT, binds the client id to the certificate
 * identity, refuses a final identity that breaks {@code IdentityRules} (identifier rejected), asks the
 * {@code Authenticator} (reading paused meanwhile, the answer bounded by {@code auth.timeout} and handed back to this
 * event loop), registers the session (closing an older channel with the same client id and
 * proof kind; refusing with identifier rejected when the holder proved its identity the other way),
 * queues the route write, sends CONNACK and then replaces itself with the session handlers. Packets a device sends
 * before its CONNACK (allowed by MQTT) wait in the flow-control handler while reading is paused and reach the
 * session handlers once it resumes. One instance per connection; event loop only.
 */
public final class MqttConnectHandler extends ChannelInboundHandlerAdapter {
    private final SessionServices services;
    private final SessionPhase sessionPhase;
    private final String name;
    private ScheduledFuture<?> connectTimeout;
    private ScheduledFuture<?> authTimeout;
    private boolean connectReceived;
    private boolean decided;
    private boolean restored;
    private int keepAliveSeconds;

    /** @param name the name this handler has in the pipeline; session handlers are added after it */
    public MqttConnectHandler(SessionServices services, SessionPhase sessionPhase, String name) {
        this.services = services;
        this.sessionPhase = sessionPhase;
        this.name = name;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            startConnectTimer(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        startConnectTimer(ctx);
        ctx.fireChannelActive();
    }

    private void startConnectTimer(ChannelHandlerContext ctx) {
        if (connectTimeout == null && !connectReceived) {
            long ms = services.config().mqtt().connectTimeout().toMillis();
            connectTimeout = ctx.executor().schedule(
                    () -> DeviceDisconnector.close(ctx.channel(), DisconnectReason.CONNECT_TIMEOUT),
                    ms, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!connectReceived) {
            if (msg instanceof MqttConnectMessage connect) {
                connectReceived = true;
                if (connectTimeout != null) {
                    connectTimeout.cancel(false);
                }
                onConnect(ctx, connect);
            } else {
                ReferenceCountUtil.release(msg);
                DeviceDisconnector.close(ctx.channel(), DisconnectReason.FIRST_PACKET_NOT_CONNECT);
            }
            return;
        }
        // reading is paused until the decision, so nothing should arrive here; a pipeline change that breaks this
        // must not let packets bypass authentication
        ReferenceCountUtil.release(msg);
        DeviceDisconnector.close(ctx.channel(), DisconnectReason.PROTOCOL_VIOLATION);
    }

    private void onConnect(ChannelHandlerContext ctx, MqttConnectMessage connect) {
        MqttConnectVariableHeader header = connect.variableHeader();
        MqttConnectPayload payload = connect.payload();
        if (services.admission().refuseConnects()) {
            // overloaded: refuse, after a random delay so the devices' retries spread out
            ctx.channel().config().setAutoRead(false);
            long max = services.config().admission().rejectDelay().toMillis();
            ctx.executor().schedule(() -> refuse(ctx, payload.clientIdentifier(),
                    MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE, DisconnectReason.OVERLOADED),
                    max <= 0 ? 0 : ThreadLocalRandom.current().nextLong(max + 1), TimeUnit.MILLISECONDS);
            return;
        }
        if (header.version() == MqttVersion.MQTT_5.protocolLevel()) {
            // the decoder switched the channel's codec to MQTT 5, so the answer is an MQTT 5 CONNACK with the
            // MQTT 5 reason code for this case (0x01 is not one)
            refuse(ctx, null, MqttConnectReturnCode.CONNECTION_REFUSED_UNSUPPORTED_PROTOCOL_VERSION,
                    DisconnectReason.UNSUPPORTED_PROTOCOL);
            return;
        }
        ConnectionContext context = ConnectionContext.of(ctx.channel());
        String requested = payload.clientIdentifier() == null ? "" : payload.clientIdentifier();
        if (ByteBufUtil.utf8Bytes(requested) > services.config().mqtt().maxClientIdLength()) {
            // Netty's decoder applies its limit only to MQTT 3.1; 3.1.1 leaves the length to the server
            refuse(ctx, null, MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED,
                    DisconnectReason.CONNECT_REFUSED);
            return;
        }
        if (requested.isEmpty() && !header.isCleanSession()) {
            // MQTT-3.1.3-7: a zero-byte client id requires clean session
            refuse(ctx, requested, MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED,
                    DisconnectReason.CONNECT_REFUSED);
            return;
        }
        String clientId = requested;
        GatewayConfig.Identity policy = services.config().identity();
        if (context.proof() == IdentityProof.CERTIFICATE) {
            String identity = context.certificateIdentity();
            if (identity == null) {
                refuse(ctx, requested, MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED,
                        DisconnectReason.CONNECT_REFUSED);
                return;
            }
            if (!policy.clientIdMustMatch() || requested.isEmpty()) {
                clientId = identity;
            } else if (!requested.equals(identity)) {
                refuse(ctx, requested, MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED,
                        DisconnectReason.CONNECT_REFUSED);
                return;
            }
        } else if (requested.isEmpty()) {
            clientId = "auto-" + services.config().nodeId() + "-"
                    + Long.toString(services.epochs().incrementAndGet(), 36);
        }
        // the one identity check, on the final id whatever its source, before anyone (the authenticator included)
        // sees it
        IdentityRules.Violation violation = IdentityRules.check(clientId);
        if (violation != null) {
            services.metrics().identityRejected(violation.label());
            refuse(ctx, clientId, MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED,
                    DisconnectReason.INVALID_IDENTITY);
            return;
        }
        UplinkMessage will = null;
        if (header.isWillFlag()) {
            String willTopic = payload.willTopic();
            if (willTopic == null || willTopic.isEmpty() || willTopic.indexOf('+') >= 0
                    || willTopic.indexOf('#') >= 0) {
                DeviceDisconnector.close(ctx.channel(), DisconnectReason.INVALID_TOPIC);
                return;
            }
            TopicLimits.Exceeded exceeded = services.config().mqtt().topicLimits().check(willTopic);
            if (exceeded != null) {
                services.metrics().topicRefused("will", exceeded);
                DeviceDisconnector.close(ctx.channel(), DisconnectReason.TOPIC_LIMIT);
                return;
            }
            will = new UplinkMessage(clientId, willTopic, header.willQos(), header.isWillRetain(),
                    payload.willMessageInBytes(), 0L);
        }
        AuthRequest request = new AuthRequest(clientId, payload.userName(), payload.passwordInBytes(),
                context.certificateIdentity(), context.certificate(), context.remoteAddress(),
                context.listener());
        ctx.channel().config().setAutoRead(false);
        CompletionStage<AuthResult> stage;
        try {
            stage = services.authenticator().authenticate(request);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        String finalClientId = clientId;
        UplinkMessage finalWill = will;
        boolean clean = header.isCleanSession();
        keepAliveSeconds = header.keepAliveTimeSeconds();
        Runnable onTimeout = () -> decide(ctx, finalClientId, finalWill, clean,
                AuthResult.deny(AuthResult.Decision.SERVER_UNAVAILABLE));
        authTimeout = ctx.executor().schedule(onTimeout, services.config().auth().timeout().toMillis(),
                TimeUnit.MILLISECONDS);
        stage.whenComplete((result, error) -> {
            AuthResult r = error != null || result == null
                    ? AuthResult.deny(AuthResult.Decision.SERVER_UNAVAILABLE) : result;
            Runnable decision = () -> decide(ctx, finalClientId, finalWill, clean, r);
            if (ctx.executor().inEventLoop()) {
                decision.run();
            } else {
                ctx.executor().execute(decision);
            }
        });
    }

    private void decide(ChannelHandlerContext ctx, String clientId, UplinkMessage will, boolean cleanSession,
                        AuthResult result) {
        if (decided) {
            return;
        }
        decided = true;
        authTimeout.cancel(false);
        Channel channel = ctx.channel();
        if (!channel.isActive()) {
            return;
        }
        if (!result.allowed()) {
            refuse(ctx, clientId, returnCode(result.decision()), DisconnectReason.CONNECT_REFUSED);
            return;
        }
        TopicAcl acl = aclOf(result);
        if (will != null && !acl.mayPublish(clientId, will.topic())) {
            services.metrics().aclDenied(true);
            refuse(ctx, clientId, MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED,
                    DisconnectReason.CONNECT_REFUSED);
            return;
        }
        // the epoch is taken here, where the session is registered, so epoch order is registration order even when
        // two CONNECTs of one client id finish authentication out of order
        long epoch = services.epochs().incrementAndGet();
        Route route = new Route(clientId, services.config().nodeId(), epoch, System.currentTimeMillis(),
                String.valueOf(ConnectionContext.of(channel).remoteAddress()));
        boolean persistent = !cleanSession;
        ConnectionContext context = ConnectionContext.of(channel);
        context.openSession(clientId, route, will, acl, persistent);
        // a connection never displaces one whose identity was proven the other way (certificate or not), nor the
        // reverse: decided atomically with the registration
        IdentityProof proof = context.proof();
        ChannelRegistry.Registration registration = services.registry().register(clientId, channel,
                (holder, newcomer) -> ConnectionContext.of(holder).proof() == proof);
        if (!registration.registered()) {
            context.abandonSession();
            services.metrics().identityRejected(GatewayMetrics.PROOF_CONFLICT);
            refuse(ctx, clientId, MqttConnectReturnCode.CONNECTION_REFUSED_IDENTIFIER_REJECTED,
                    DisconnectReason.IDENTITY_CONFLICT);
            return;
        }
        Channel older = registration.replaced();
        if (older != null) {
            services.metrics().takeover();
            older.eventLoop().execute(() -> {
                if (!persistent) {
                    // MQTT-3.1.2-6: a clean session discards the old one, in flight or not
                    ConnectionContext.of(older).discardSession();
                }
                DeviceDisconnector.close(older, DisconnectReason.TAKEOVER);
            });
        }
        services.routes().put(route);
        CompletionStage<StoredSession> stored = SessionStoreCalls.call(services.metrics(), "open",
                () -> services.sessions().open(context.sessionKey(), cleanSession, epoch));
        if (!persistent) {
            services.metrics().sessionOpened("clean");
            accept(ctx, clientId, false);
            return;
        }
        // reading stays paused until the stored session is back (or the wait is over)
        ScheduledFuture<?> wait = ctx.executor().schedule(() -> restore(ctx, null),
                services.config().session().openTimeout().toMillis(), TimeUnit.MILLISECONDS);
        stored.whenComplete((session, error) -> {
            Runnable restore = () -> {
                wait.cancel(false);
                restore(ctx, error != null ? null : session);
            };
            if (ctx.executor().inEventLoop()) {
                restore.run();
            } else {
                ctx.executor().execute(restore);
            }
        });
    }

    /**
     * Puts a persistent session back: its subscriptions, then CONNACK, then its pending messages in stored order.
     * {@code session} null means the store did not answer in time: the device is served as a new session. Runs once.
     */
    private void restore(ChannelHandlerContext ctx, StoredSession session) {
        if (restored) {
            return;
        }
        restored = true;
        Channel channel = ctx.channel();
        ConnectionContext context = ConnectionContext.of(channel);
        if (!channel.isActive()) {
            return;
        }
        if (session == null) {
            services.metrics().sessionOpened("unavailable");
            session = StoredSession.NONE;
        } else {
            services.metrics().sessionOpened(session.present() ? "resumed" : "new");
        }
        context.subscriptions().putAll(session.subscriptions());
        accept(ctx, context.clientId(), session.present());
        DownlinkSession downlink = null;
        for (StoredMessage m : session.pending()) {
            int granted = context.grantedQos(m.message().topic());
            if (granted < 0) {
                services.metrics().downlinkOutcome(DownlinkTarget.Outcome.NOT_SUBSCRIBED);
                SessionStoreCalls.call(services.metrics(), "remove",
                        () -> services.sessions().remove(context.sessionKey(), m.id()));
                continue;
            }
            if (downlink == null) {
                downlink = context.downlink(channel, services.config().downlink(), services.metrics(),
                        services.sessions());
            }
            downlink.sendStored(DownlinkPublish.encode(m.message(), channel.alloc()),
                    Math.min(granted, m.message().qos()), m.id());
        }
        context.restored();
    }

    /** CONNACK accepted, the session handlers in place of this one, reading resumed. */
    private void accept(ChannelHandlerContext ctx, String clientId, boolean sessionPresent) {
        Channel channel = ctx.channel();
        ctx.writeAndFlush(MqttMessageBuilders.connAck()
                .returnCode(MqttConnectReturnCode.CONNECTION_ACCEPTED).sessionPresent(sessionPresent).build());
        services.metrics().connectAnswered(MqttConnectReturnCode.CONNECTION_ACCEPTED);
        services.events().connected(clientId, ConnectionContext.of(channel).remoteAddress(),
                ConnectionContext.of(channel).listener());
        sessionPhase.install(ctx.pipeline(), name, keepAliveSeconds);
        ctx.pipeline().remove(this);
        if (channel.isWritable()) {
            // an unwritable channel stays paused; the writability handler resumes it once it drains
            channel.config().setAutoRead(true);
        }
    }

    /** The device's own ACL when its authentication answer carries one, else the configured default (shared). */
    private TopicAcl aclOf(AuthResult result) {
        String publish = result.attributes().get(AuthResult.ACL_PUBLISH);
        String subscribe = result.attributes().get(AuthResult.ACL_SUBSCRIBE);
        if (publish == null && subscribe == null) {
            return services.config().acl().defaults();
        }
        TopicAcl defaults = services.config().acl().defaults();
        return new TopicAcl(publish == null ? defaults.publishFilters() : split(publish),
                subscribe == null ? defaults.subscribeFilters() : split(subscribe));
    }

    private static List<String> split(String filters) {
        return Arrays.stream(filters.split(",")).map(String::trim).filter(f -> !f.isEmpty()).toList();
    }

    private void refuse(ChannelHandlerContext ctx, String clientId, MqttConnectReturnCode code,
                        DisconnectReason reason) {
        services.metrics().connectAnswered(code);
        services.events().refused(clientId, ConnectionContext.of(ctx.channel()).remoteAddress(), code);
        DeviceDisconnector.closeAfter(ctx.channel(), InvalidPacketHandler.refusal(code), reason);
    }

    static MqttConnectReturnCode returnCode(AuthResult.Decision decision) {
        return switch (decision) {
            case ALLOW -> MqttConnectReturnCode.CONNECTION_ACCEPTED;
            case NOT_AUTHORIZED -> MqttConnectReturnCode.CONNECTION_REFUSED_NOT_AUTHORIZED;
            case BAD_CREDENTIALS -> MqttConnectReturnCode.CONNECTION_REFUSED_BAD_USER_NAME_OR_PASSWORD;
            case SERVER_UNAVAILABLE -> MqttConnectReturnCode.CONNECTION_REFUSED_SERVER_UNAVAILABLE;
        };
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancelTimers();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancelTimers();
    }

    private void cancelTimers() {
        if (connectTimeout != null) {
            connectTimeout.cancel(false);
        }
        if (authTimeout != null && !decided) {
            authTimeout.cancel(false);
        }
    }
}
