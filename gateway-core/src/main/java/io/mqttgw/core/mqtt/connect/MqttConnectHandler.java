package io.mqttgw.core.mqtt.connect;

import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.connection.ProtocolCapabilities;
import io.mqttgw.core.connection.SessionPhase;
import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.mqttgw.core.spi.AuthResult;
import io.mqttgw.core.spi.SessionStore.StoredSession;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.mqtt.MqttConnectMessage;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The CONNECT phase of one connection, as steps a reader follows top to bottom: wait a bounded time for CONNECT,
 * refuse it when the node is overloaded (after a random delay), check it ({@link ConnectChecks}, the identity by
 * {@link ClientIdBinding}), authenticate ({@link ConnectAuthentication}), admit and take over ({@link
 * SessionAdmission}), wait for the route table when the device has no certificate ({@link RouteWrite}), restore a
 * persistent session ({@link SessionRestore}), then CONNACK and the switch to the session handlers ({@link
 * ConnectReply}). An MQTT 5.0 CONNECT gets the same treatment plus its properties ({@link Mqtt5Connect}, {@link
 * ConnectRefusal}).
 *
 * <p>Where a step waits for an asynchronous answer the connection is in that step's {@link ConnectState}: reading is
 * paused, a deadline runs, and the answer (or the deadline) re-enters on this event loop and counts only while the
 * state is still the one it was awaited in. An answer already there when asked (a certificate identity, an in-memory
 * table or store) is taken in the same read, without pausing reading or a timer, which cost two epoll_ctl calls and
 * a timer per connection ({@link ConnectStateMachine} owns the states and the waits). Packets a device sends before
 * its CONNACK (allowed by MQTT) wait in the flow-control handler while reading is paused and reach the session
 * handlers once it resumes. One instance per connection; event loop only.
 */
public final class MqttConnectHandler extends ConnectStateMachine {
    private final SessionServices services;
    private final String name;
    private final ConnectChecks checks;
    private final ConnectAuthentication authentication;
    private final RouteWrite routes;
    private final SessionAdmission admission;
    private final SessionRestore restore;
    private final ConnectReply reply;

    private ScheduledFuture<?> connectTimeout;
    /** The CONNECT's protocol; the refusals' codes depend on it. */
    private ProtocolCapabilities capabilities = ProtocolCapabilities.MQTT_3_1_1;
    /** The checked CONNECT, once it passed its checks. */
    private ConnectRequest request;

    /** @param name the name this handler has in the pipeline; session handlers are added after it */
    public MqttConnectHandler(SessionServices services, SessionPhase sessionPhase, String name) {
        this.services = services;
        this.name = name;
        this.checks = new ConnectChecks(services);
        this.authentication = new ConnectAuthentication(services);
        this.routes = new RouteWrite(services);
        this.admission = new SessionAdmission(services, routes);
        this.restore = new SessionRestore(services);
        this.reply = new ConnectReply(services, sessionPhase);
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
        if (connectTimeout == null && state() == ConnectState.AWAITING_CONNECT) {
            long ms = services.config().mqtt().connectTimeout().toMillis();
            connectTimeout = ctx.executor().schedule(
                    () -> DeviceDisconnector.close(ctx.channel(), DisconnectReason.CONNECT_TIMEOUT),
                    ms, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (state() == ConnectState.AWAITING_CONNECT) {
            if (connectTimeout != null) {
                connectTimeout.cancel(false);
            }
            if (msg instanceof MqttConnectMessage connect) {
                onConnect(ctx, connect);
            } else {
                ReferenceCountUtil.release(msg);
                moveTo(ConnectState.ENDED);
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

    /** Checks, then authentication. */
    private void onConnect(ChannelHandlerContext ctx, MqttConnectMessage connect) {
        capabilities = ConnectChecks.capabilities(connect);
        if (services.admission().refuseConnects()) {
            // overloaded: refuse, after a random delay so the devices' retries spread out
            moveTo(ConnectState.ENDED);
            pause(ctx);
            reply.refuseLater(ctx.channel(), capabilities, new Refused(connect.payload().clientIdentifier(),
                    ConnectRefusal.SERVER_BUSY, DisconnectReason.OVERLOADED));
            return;
        }
        CheckOutcome checked = checks.check(connect, capabilities, ConnectionContext.of(ctx.channel()));
        if (checked instanceof Refused refused) {
            refuse(ctx, refused);
            return;
        }
        request = (ConnectRequest) checked;
        CompletionStage<AuthResult> answer = authentication.start(request, ConnectionContext.of(ctx.channel()));
        await(ctx, ConnectState.AUTHENTICATING, answer, services.config().auth().timeout(),
                (result, error) -> onAuthenticated(ctx, ConnectAuthentication.orUnavailable(result, error)), null);
    }

    /** The authenticator's answer: a refusal, or admission (registry and takeover), then the route. */
    private void onAuthenticated(ChannelHandlerContext ctx, AuthResult result) {
        Refused denied = ConnectAuthentication.denial(request, result);
        if (denied != null) {
            refuse(ctx, denied);
            return;
        }
        TopicAcl acl = authentication.aclOf(result);
        Refused willDenied = authentication.willOutside(request, acl);
        if (willDenied != null) {
            refuse(ctx, willDenied);
            return;
        }
        SessionAdmission.Admission admitted = admission.admit(ctx.channel(), request, acl);
        switch (admitted.outcome()) {
            case SUPERSEDED -> {
                services.metrics().takeover();
                moveTo(ConnectState.ENDED);
                DeviceDisconnector.close(ctx.channel(), DisconnectReason.TAKEOVER);
            }
            case PROOF_CONFLICT -> {
                services.metrics().identityRejected(GatewayMetrics.PROOF_CONFLICT);
                refuse(ctx, identityConflict());
            }
            case ADMITTED -> route(ctx, admitted);
        }
    }

    /**
     * A connection without a certificate is served only once the route table took its route: a shared table refuses
     * it when another node holds the client id for a certificate-proven device, and it must not publish a single
     * message as that device meanwhile. Certificate connections (the hot path) do not wait; a conflict found later
     * closes them.
     */
    private void route(ChannelHandlerContext ctx, SessionAdmission.Admission admitted) {
        if (ConnectionContext.of(ctx.channel()).proof() == IdentityProof.CERTIFICATE) {
            routes.closeOnLateConflict(admitted.routed(), ctx.channel(), admitted.epoch());
            serve(ctx, admitted.stored());
            return;
        }
        await(ctx, ConnectState.ROUTING, admitted.routed(), services.config().session().openTimeout(),
                (ignored, error) -> onRouted(ctx, admitted.stored(), error),
                (ignored, error) -> {
                    if (RouteWrite.isConflict(error)) {
                        routes.closeOnConflict(ctx.channel(), admitted.epoch());
                    }
                });
    }

    /** The route write of a connection without a certificate answered, or the wait for it ended. */
    private void onRouted(ChannelHandlerContext ctx, CompletionStage<StoredSession> stored, Throwable error) {
        if (RouteWrite.isConflict(error)) {
            ConnectionContext.of(ctx.channel()).discardWill();
            services.metrics().identityRejected(GatewayMetrics.PROOF_CONFLICT);
            refuse(ctx, identityConflict());
            return;
        }
        // stored or not answering: served (a conflict found later still closes the session)
        serve(ctx, stored);
    }

    /** CONNACK now (clean session), or once the stored session is back (or the wait for it is over). */
    private void serve(ChannelHandlerContext ctx, CompletionStage<StoredSession> stored) {
        if (!request.persistent()) {
            restore.clean(sessionPresent -> establish(ctx, sessionPresent));
            return;
        }
        await(ctx, ConnectState.RESTORING, stored, services.config().session().openTimeout(),
                (session, error) -> restore.restore(ctx.channel(), error != null ? null : session,
                        sessionPresent -> establish(ctx, sessionPresent)), null);
    }

    private void establish(ChannelHandlerContext ctx, boolean sessionPresent) {
        if (moveTo(ConnectState.ESTABLISHED)) {
            reply.accept(ctx, name, request, sessionPresent);
        }
    }

    private Refused identityConflict() {
        return new Refused(request.clientId(), ConnectRefusal.IDENTIFIER_REJECTED, DisconnectReason.IDENTITY_CONFLICT);
    }

    private void refuse(ChannelHandlerContext ctx, Refused refused) {
        moveTo(ConnectState.ENDED);
        reply.refuse(ctx.channel(), capabilities, refused);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        end();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        end();
    }

    /** The channel closed or the handler left: no answer still on its way counts. */
    private void end() {
        if (connectTimeout != null) {
            connectTimeout.cancel(false);
        }
        endWaits();
    }
}
