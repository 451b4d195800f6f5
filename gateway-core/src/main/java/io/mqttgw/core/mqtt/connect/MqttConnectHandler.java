package io.mqttgw.core.mqtt.connect;

import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.codec.InvalidPacketHandler;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.connection.ProtocolCapabilities;
import io.mqttgw.core.connection.SessionPhase;
import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.core.identity.IdentityRules;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.mqtt.downlink.DownlinkPublish;
import io.mqttgw.core.mqtt.downlink.DownlinkSession;
import io.mqttgw.core.codec.PublishProperties;
import io.mqttgw.core.connection.Mqtt5Session;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.mqttgw.core.mqtt.session.SessionStoreCalls;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.AuthRequest;
import io.mqttgw.core.spi.AuthResult;
import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.spi.SessionStore.StoredMessage;
import io.mqttgw.core.spi.SessionStore.StoredSession;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteConflictException;
import io.mqttgw.core.spi.Subscriptions;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.topic.TopicLimits;
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
 * {@code Authenticator} (an answer that is there at once, as a certificate identity's is, is decided in the same
 * read; otherwise reading is paused meanwhile, the answer bounded by {@code auth.timeout} and handed back to this
 * event loop), registers the session (closing an older channel with the same client id and
 * proof kind; refusing with identifier rejected when the holder proved its identity the other way),
 * queues the route write, sends CONNACK and then replaces itself with the session handlers. An MQTT 5.0 CONNECT
 * gets the same treatment plus its properties: the device's limits become the connection's
 * {@link ProtocolCapabilities}, CONNACK announces the gateway's own ({@link Mqtt5Connect}), and every refusal
 * carries the 5.0 reason code ({@link ConnectRefusal}); an authentication method is refused (0x8C: certificates are
 * the authentication here). Packets a device sends
 * before its CONNACK (allowed by MQTT) wait in the flow-control handler while reading is paused and reach the
 * session handlers once it resumes. One instance per connection; event loop only.
 */
public final class MqttConnectHandler extends ChannelInboundHandlerAdapter {
    /** Registry refusal: a CONNECT with a newer epoch for the same client id holds the registry. */
    private static final String SUPERSEDED = "superseded";

    private final SessionServices services;
    private final SessionPhase sessionPhase;
    private final String name;
    private ScheduledFuture<?> connectTimeout;
    private ScheduledFuture<?> authTimeout;
    private boolean connectReceived;
    private boolean decided;
    private boolean restored;
    private boolean routeDecided;
    private int keepAliveSeconds;
    /** The CONNECT's protocol and the device's limits; on the connection once the accepting CONNACK is written. */
    private ProtocolCapabilities capabilities = ProtocolCapabilities.MQTT_3_1_1;
    /** 5.0: the client id the gateway chose for a device that sent an empty one (CONNACK assigned client id). */
    private String assignedClientId;
    /** 5.0: the keepalive imposed by {@code mqtt.max-keep-alive} (CONNACK server keep alive), or -1. */
    private int serverKeepAlive = -1;
    /** 3.1.1 clean session, 5.0 clean start: any stored session is discarded. */
    private boolean cleanStart;
    /** How long the session outlives the connection, for the session store ({@link SessionStore#open}). */
    private long expiryMillis;
    /** 5.0: the session expiry granted when below the one asked for (CONNACK session expiry interval), or -1. */
    private long grantedExpirySeconds = -1;
    /** 5.0: session expiry and will delay for the connection, or null. */
    private Mqtt5Session mqtt5Session;

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
        // reading is paused until the decision and an acceptance replaces this handler, so what arrives here came
        // in the same read behind a CONNECT refused at once (or a pipeline change broke this): it must not bypass
        // authentication; a refusal's reason, decided first, is the one counted
        ReferenceCountUtil.release(msg);
        DeviceDisconnector.close(ctx.channel(), DisconnectReason.PROTOCOL_VIOLATION);
    }

    private void onConnect(ChannelHandlerContext ctx, MqttConnectMessage connect) {
        MqttConnectVariableHeader header = connect.variableHeader();
        MqttConnectPayload payload = connect.payload();
        MqttVersion version = MqttVersion.fromProtocolNameAndLevel(header.name(), (byte) header.version());
        capabilities = version == MqttVersion.MQTT_5 ? Mqtt5Connect.capabilities(header.properties())
                : ProtocolCapabilities.legacy(version);
        if (services.admission().refuseConnects()) {
            // overloaded: refuse, after a random delay so the devices' retries spread out
            pause(ctx);
            long max = services.config().admission().rejectDelay().toMillis();
            ctx.executor().schedule(() -> refuse(ctx, payload.clientIdentifier(),
                    ConnectRefusal.SERVER_BUSY, DisconnectReason.OVERLOADED),
                    max <= 0 ? 0 : ThreadLocalRandom.current().nextLong(max + 1), TimeUnit.MILLISECONDS);
            return;
        }
        if (capabilities.properties() && Mqtt5Connect.namesAuthenticationMethod(header.properties())) {
            // enhanced authentication (SCRAM, Kerberos...) is not offered: the certificate is the authentication
            refuse(ctx, payload.clientIdentifier(), ConnectRefusal.BAD_AUTHENTICATION_METHOD,
                    DisconnectReason.BAD_AUTHENTICATION_METHOD);
            return;
        }
        ConnectionContext context = ConnectionContext.of(ctx.channel());
        String requested = payload.clientIdentifier() == null ? "" : payload.clientIdentifier();
        if (ByteBufUtil.utf8Bytes(requested) > services.config().mqtt().maxClientIdLength()) {
            // Netty's decoder applies its limit only to MQTT 3.1; 3.1.1 leaves the length to the server
            refuse(ctx, null, ConnectRefusal.IDENTIFIER_REJECTED, DisconnectReason.CONNECT_REFUSED);
            return;
        }
        if (requested.isEmpty() && !header.isCleanSession() && !capabilities.properties()) {
            // MQTT-3.1.3-7: a zero-byte client id requires clean session; 5.0 tells the device the id it assigns
            refuse(ctx, requested, ConnectRefusal.IDENTIFIER_REJECTED, DisconnectReason.CONNECT_REFUSED);
            return;
        }
        String clientId = requested;
        GatewayConfig.Identity policy = services.config().identity();
        if (context.proof() == IdentityProof.CERTIFICATE) {
            String identity = context.certificateIdentity();
            if (identity == null) {
                refuse(ctx, requested, ConnectRefusal.NOT_AUTHORIZED, DisconnectReason.CONNECT_REFUSED);
                return;
            }
            if (!policy.clientIdMustMatch() || requested.isEmpty()) {
                clientId = identity;
            } else if (!requested.equals(identity)) {
                refuse(ctx, requested, ConnectRefusal.IDENTIFIER_REJECTED, DisconnectReason.CONNECT_REFUSED);
                return;
            } else {
                // equal: the session keeps one string for both, not the decoder's copy too
                clientId = identity;
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
            refuse(ctx, clientId, ConnectRefusal.IDENTIFIER_REJECTED, DisconnectReason.INVALID_IDENTITY);
            return;
        }
        if (requested.isEmpty() && capabilities.properties()) {
            assignedClientId = clientId;
        }
        UplinkMessage will = null;
        if (header.isWillFlag()) {
            String willTopic = payload.willTopic();
            if (willTopic == null || willTopic.isEmpty() || willTopic.indexOf('+') >= 0
                    || willTopic.indexOf('#') >= 0) {
                refuse(ctx, clientId, ConnectRefusal.TOPIC_NAME_INVALID, DisconnectReason.INVALID_TOPIC);
                return;
            }
            TopicLimits.Exceeded exceeded = services.config().mqtt().topicLimits().check(willTopic);
            if (exceeded != null) {
                services.metrics().topicRefused("will", exceeded);
                refuse(ctx, clientId, ConnectRefusal.TOPIC_NAME_INVALID, DisconnectReason.TOPIC_LIMIT);
                return;
            }
            will = new UplinkMessage(clientId, willTopic, header.willQos(), header.isWillRetain(),
                    payload.willMessageInBytes(), 0L, PublishProperties.read(payload.willProperties()),
                    PublishProperties.expiryInterval(payload.willProperties()));
        }
        AuthRequest request = new AuthRequest(clientId, payload.userName(), payload.passwordInBytes(),
                context.certificateIdentity(), context.certificate(), context.remoteAddress(),
                context.listener());
        CompletionStage<AuthResult> stage;
        try {
            stage = services.authenticator().authenticate(request);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        String finalClientId = clientId;
        UplinkMessage finalWill = will;
        cleanStart = header.isCleanSession();
        if (capabilities.properties()) {
            sessionExpiry(header, payload, will != null);
        } else {
            expiryMillis = cleanStart ? 0 : SessionStore.LONGEST;
        }
        keepAliveSeconds = header.keepAliveTimeSeconds();
        int maxKeepAlive = services.config().mqtt().maxKeepAliveSeconds();
        if (capabilities.properties() && maxKeepAlive > 0
                && (keepAliveSeconds == 0 || keepAliveSeconds > maxKeepAlive)) {
            // only 5.0 can be told (server keep alive); a 3.1.1 device keeps the keepalive it chose
            keepAliveSeconds = maxKeepAlive;
            serverKeepAlive = maxKeepAlive;
        }
        CompletableFuture<AuthResult> answered = answeredNow(stage);
        if (answered != null) {
            // answered at once (the certificate is the identity, or a cached answer): decided in this read, without
            // pausing reading or a timer, which cost two epoll_ctl calls and a timer per connection
            decide(ctx, finalClientId, finalWill, answered.handle(MqttConnectHandler::orUnavailable).join());
            return;
        }
        pause(ctx);
        Runnable onTimeout = () -> decide(ctx, finalClientId, finalWill,
                AuthResult.deny(AuthResult.Decision.SERVER_UNAVAILABLE));
        authTimeout = ctx.executor().schedule(onTimeout, services.config().auth().timeout().toMillis(),
                TimeUnit.MILLISECONDS);
        stage.whenComplete((result, error) -> {
            AuthResult r = orUnavailable(result, error);
            Runnable decision = () -> decide(ctx, finalClientId, finalWill, r);
            if (ctx.executor().inEventLoop()) {
                decision.run();
            } else {
                ctx.executor().execute(decision);
            }
        });
    }

    /**
     * The stage when it has its answer already, else null. Only a plain {@link CompletableFuture} is asked: a stage of
     * another kind may not answer {@code isDone} (a minimal stage throws), and waiting for it is always correct.
     */
    @SuppressWarnings("unchecked")
    private static <T> CompletableFuture<T> answeredNow(CompletionStage<T> stage) {
        return stage != null && stage.getClass() == CompletableFuture.class
                && ((CompletableFuture<T>) stage).isDone() ? (CompletableFuture<T>) stage : null;
    }

    private static AuthResult orUnavailable(AuthResult result, Throwable error) {
        return error != null || result == null ? AuthResult.deny(AuthResult.Decision.SERVER_UNAVAILABLE) : result;
    }

    /**
     * Stops reading while the decision waits for an answer (authentication, the route table, the stored session):
     * nothing the device sends meanwhile may reach a handler before the decision. {@link #accept} resumes.
     */
    private static void pause(ChannelHandlerContext ctx) {
        ctx.channel().config().setAutoRead(false);
    }

    /**
     * MQTT 5.0: the session expiry interval replaces clean session. The interval CONNECT asks for is capped at
     * {@code session.expiry} (CONNACK then names the one granted); the will delay at that interval (the will goes
     * out when the session ends at the latest). A connection gets its {@link Mqtt5Session} only when its session is
     * stored or its will is delayed.
     */
    private void sessionExpiry(MqttConnectVariableHeader header, MqttConnectPayload payload, boolean hasWill) {
        long asked = Mqtt5Connect.sessionExpirySeconds(header.properties());
        long granted = Math.min(asked, services.config().session().expiry().toSeconds());
        if (granted != asked) {
            grantedExpirySeconds = granted;
        }
        long willDelay = hasWill ? Math.min(Mqtt5Connect.willDelaySeconds(payload.willProperties()), granted) : 0;
        expiryMillis = granted * 1000L;
        if (!cleanStart || granted > 0 || willDelay > 0) {
            mqtt5Session = new Mqtt5Session((int) granted, (int) willDelay);
        }
    }

    private void decide(ChannelHandlerContext ctx, String clientId, UplinkMessage will, AuthResult result) {
        if (decided) {
            return;
        }
        decided = true;
        if (authTimeout != null) {
            authTimeout.cancel(false);
        }
        Channel channel = ctx.channel();
        if (!channel.isActive()) {
            return;
        }
        if (!result.allowed()) {
            refuse(ctx, clientId, refusalOf(result.decision()), DisconnectReason.CONNECT_REFUSED);
            return;
        }
        TopicAcl acl = aclOf(result);
        if (will != null && !acl.mayPublish(clientId, will.topic())) {
            services.metrics().aclDenied(true);
            refuse(ctx, clientId, ConnectRefusal.NOT_AUTHORIZED, DisconnectReason.CONNECT_REFUSED);
            return;
        }
        long epoch = services.epochs().incrementAndGet();
        ConnectionContext context = ConnectionContext.of(channel);
        IdentityProof proof = context.proof();
        Route route = new Route(clientId, services.config().nodeId(), epoch, System.currentTimeMillis(),
                String.valueOf(context.remoteAddress()), proof);
        // stored unless nothing of it is to outlive the connection (3.1.1 clean session 1, 5.0 clean start, expiry 0)
        boolean persistent = !(cleanStart && expiryMillis == 0);
        context.openSession(clientId, route, will, acl, persistent);
        context.mqtt5(mqtt5Session);
        // One atomic decision per client id: a connection never displaces one whose identity was proven the other
        // way (certificate or not), nor the reverse; and of two CONNECTs racing on two event loops the newer epoch
        // wins, whichever registers first. The route write and the session open are started inside the decision,
        // so the stores see the connections of one client id in epoch order too: a loser never writes after the
        // winner, and its fenced delete and session expiry (by epoch) never touch the winner's.
        @SuppressWarnings("unchecked")
        CompletionStage<Void>[] routed = new CompletionStage[1];
        @SuppressWarnings("unchecked")
        CompletionStage<StoredSession>[] stored = new CompletionStage[1];
        ChannelRegistry.Registration registration = services.registry().register(clientId, channel,
                (holder, newcomer) -> {
                    ConnectionContext held = ConnectionContext.of(holder);
                    if (held.proof() != proof) {
                        return GatewayMetrics.PROOF_CONFLICT;
                    }
                    Route heldRoute = held.route();
                    return heldRoute != null && heldRoute.epoch() > epoch ? SUPERSEDED : null;
                },
                () -> {
                    routed[0] = startRouteWrite(route);
                    stored[0] = SessionStoreCalls.call(services.metrics(), "open",
                            () -> services.sessions().open(context.sessionKey(), cleanStart, expiryMillis, epoch));
                });
        if (!registration.registered()) {
            context.abandonSession();
            if (SUPERSEDED.equals(registration.refusal())) {
                // a newer CONNECT of this client id already holds it: this one is taken over before it began
                services.metrics().takeover();
                DeviceDisconnector.close(channel, DisconnectReason.TAKEOVER);
                return;
            }
            services.metrics().identityRejected(GatewayMetrics.PROOF_CONFLICT);
            refuse(ctx, clientId, ConnectRefusal.IDENTIFIER_REJECTED, DisconnectReason.IDENTITY_CONFLICT);
            return;
        }
        // a will waiting for its delay: the session resumes (not sent), or a clean start ends it (sent now)
        if (cleanStart) {
            services.wills().publishNow(context.sessionKey());
        } else {
            services.wills().cancel(context.sessionKey());
        }
        Channel older = registration.replaced();
        if (older != null) {
            services.metrics().takeover();
            older.eventLoop().execute(() -> {
                if (cleanStart) {
                    // MQTT-3.1.2-6 / 5.0 clean start: the old session is discarded, in flight or not
                    ConnectionContext.of(older).discardSession();
                }
                DeviceDisconnector.close(older, DisconnectReason.TAKEOVER);
            });
        }
        if (proof == IdentityProof.NO_CERTIFICATE) {
            // A connection without a certificate is served only once the route table took its route: a shared
            // table refuses it when another node holds the client id for a certificate-proven device, and it must
            // not publish a single message as that device meanwhile. Certificate connections (the hot path) do not
            // wait; a conflict found later closes them.
            CompletableFuture<Void> answered = answeredNow(routed[0]);
            if (answered != null) {
                // a local table answers at once
                afterRoute(ctx, clientId, persistent, stored[0], answered.handle((ignored, error) -> error).join());
                return;
            }
            pause(ctx);
            ScheduledFuture<?> wait = ctx.executor().schedule(() -> afterRoute(ctx, clientId, persistent,
                    stored[0], null), services.config().session().openTimeout().toMillis(), TimeUnit.MILLISECONDS);
            routed[0].whenComplete((ignored, error) -> onLoop(ctx, () -> {
                wait.cancel(false);
                if (!routeDecided) {
                    afterRoute(ctx, clientId, persistent, stored[0], error);
                } else if (isConflict(error)) {
                    closeOnConflict(channel, epoch);
                }
            }));
            return;
        }
        routed[0].whenComplete((ignored, error) -> {
            if (isConflict(error)) {
                channel.eventLoop().execute(() -> closeOnConflict(channel, epoch));
            }
        });
        serve(ctx, clientId, persistent, stored[0]);
    }

    /** The route write, its failure as a failed stage rather than an exception thrown under the registry's lock. */
    private CompletionStage<Void> startRouteWrite(Route route) {
        try {
            CompletionStage<Void> stage = services.routes().put(route);
            return stage == null ? CompletableFuture.completedFuture(null) : stage;
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * A route write the table refused after the connection was served (another node holds this client id for a
     * connection proven the other way) ends the session, without its will. Event loop only.
     */
    private void closeOnConflict(Channel channel, long epoch) {
        ConnectionContext c = ConnectionContext.of(channel);
        Route r = c.route();
        if (channel.isActive() && r != null && r.epoch() == epoch && c.sessionOpen()) {
            services.metrics().identityRejected(GatewayMetrics.PROOF_CONFLICT);
            c.endForIdentityConflict(channel);
        }
    }

    private static boolean isConflict(Throwable error) {
        Throwable e = error;
        while (e instanceof java.util.concurrent.CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        return e instanceof RouteConflictException;
    }

    /** A route write of a connection without a certificate answered (or the wait ended: {@code error} null). */
    private void afterRoute(ChannelHandlerContext ctx, String clientId, boolean persistent,
                            CompletionStage<StoredSession> stored, Throwable error) {
        if (routeDecided || !ctx.channel().isActive()) {
            return;
        }
        routeDecided = true;
        if (isConflict(error)) {
            ConnectionContext.of(ctx.channel()).forgetWill();
            services.metrics().identityRejected(GatewayMetrics.PROOF_CONFLICT);
            refuse(ctx, clientId, ConnectRefusal.IDENTIFIER_REJECTED, DisconnectReason.IDENTITY_CONFLICT);
            return;
        }
        // stored or not answering: served (a conflict found later still closes the session)
        serve(ctx, clientId, persistent, stored);
    }

    private static void onLoop(ChannelHandlerContext ctx, Runnable task) {
        if (ctx.executor().inEventLoop()) {
            task.run();
        } else {
            ctx.executor().execute(task);
        }
    }

    /** CONNACK now (clean session), or once the stored session is back (or the wait for it is over). */
    private void serve(ChannelHandlerContext ctx, String clientId, boolean persistent,
                       CompletionStage<StoredSession> stored) {
        if (!persistent) {
            services.metrics().sessionOpened("clean");
            accept(ctx, clientId, false);
            return;
        }
        CompletableFuture<StoredSession> answered = answeredNow(stored);
        if (answered != null) {
            // an in-memory store answers at once: no pause, no timer
            restore(ctx, answered.handle((session, error) -> error != null ? null : session).join());
            return;
        }
        // reading stays paused until the stored session is back (or the wait is over)
        pause(ctx);
        ScheduledFuture<?> wait = ctx.executor().schedule(() -> restore(ctx, null),
                services.config().session().openTimeout().toMillis(), TimeUnit.MILLISECONDS);
        stored.whenComplete((session, error) -> onLoop(ctx, () -> {
            wait.cancel(false);
            restore(ctx, error != null ? null : session);
        }));
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
        context.subscriptions(Subscriptions.copyOf(session.subscriptions()));
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
        MqttMessageBuilders.ConnAckBuilder connAck = MqttMessageBuilders.connAck()
                .returnCode(MqttConnectReturnCode.CONNECTION_ACCEPTED).sessionPresent(sessionPresent);
        if (capabilities.properties()) {
            connAck.properties(Mqtt5Connect.connAck(services.config().mqtt(), assignedClientId, serverKeepAlive,
                    grantedExpirySeconds));
        }
        // from here on the device may be told why the gateway closes the connection (5.0 server DISCONNECT)
        ConnectionContext.of(channel).capabilities(capabilities);
        ctx.writeAndFlush(connAck.build());
        services.metrics().connectAnswered(MqttConnectReturnCode.CONNECTION_ACCEPTED);
        services.events().connected(clientId, ConnectionContext.of(channel).remoteAddress(),
                ConnectionContext.of(channel).listener());
        sessionPhase.install(ctx.pipeline(), name, keepAliveSeconds);
        ctx.pipeline().remove(this);
        if (channel.isWritable()) {
            // an unwritable channel stays paused; the writability watch resumes it once it drains
            channel.config().setAutoRead(true);
        }
    }

    /**
     * The device's own ACL when its authentication answer carries one, else the configured default (shared); the
     * default as the last reload left it.
     */
    private TopicAcl aclOf(AuthResult result) {
        String publish = result.attributes().get(AuthResult.ACL_PUBLISH);
        String subscribe = result.attributes().get(AuthResult.ACL_SUBSCRIBE);
        TopicAcl defaults = services.live().current().acl().defaults();
        if (publish == null && subscribe == null) {
            return defaults;
        }
        return new TopicAcl(publish == null ? defaults.publishFilters() : split(publish),
                subscribe == null ? defaults.subscribeFilters() : split(subscribe));
    }

    private static List<String> split(String filters) {
        return Arrays.stream(filters.split(",")).map(String::trim).filter(f -> !f.isEmpty()).toList();
    }

    /** CONNACK with the refusal's code for this connection's protocol, then close; a close alone where it has none. */
    private void refuse(ChannelHandlerContext ctx, String clientId, ConnectRefusal refusal, DisconnectReason reason) {
        MqttConnectReturnCode code = refusal.code(capabilities);
        if (code == null) {
            DeviceDisconnector.close(ctx.channel(), reason);
            return;
        }
        services.metrics().connectAnswered(code);
        services.events().refused(clientId, ConnectionContext.of(ctx.channel()).remoteAddress(), code);
        DeviceDisconnector.closeAfter(ctx.channel(), InvalidPacketHandler.refusal(code), reason);
    }

    /** The refusal for an authenticator's denial ({@code ALLOW} is never refused). */
    static ConnectRefusal refusalOf(AuthResult.Decision decision) {
        return switch (decision) {
            case ALLOW, NOT_AUTHORIZED -> ConnectRefusal.NOT_AUTHORIZED;
            case BAD_CREDENTIALS -> ConnectRefusal.BAD_CREDENTIALS;
            case SERVER_UNAVAILABLE -> ConnectRefusal.SERVER_UNAVAILABLE;
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
