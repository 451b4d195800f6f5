package io.mqttgw.core.admin;

import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.core.identity.IdentityRules;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.OperationForwarding;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.SessionStore;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The operator API on clients and sessions, for an authenticated operator ({@link OperatorAuthHandler} ran before):
 * {@code GET /clients?prefix=&limit=&cursor=} pages through this node's sessions in client-id order;
 * {@code GET /clients/{id}} shows one (read on its event loop; from the route table when another node holds it);
 * {@code DELETE /clients/{id}[?discard-session=true]} kicks it (reason {@code administrative}; on the node that holds
 * it, forwarded there where the route store can carry it, else refused with 409 naming that node); {@code GET
 * /sessions/{id}} shows a stored persistent session. Other requests go on to {@link OperationsHandler}. Every
 * request, answered or refused, is written to the event log with its operator and counted.
 *
 * <p>Stateless, shared by the connections; runs on the admin thread and never waits there: per-connection state is
 * copied on the device's event loop and route or session lookups are asynchronous, each bounded by
 * {@link #ANSWER_TIMEOUT_SECONDS}, and the answer is written when they complete.
 */
@ChannelHandler.Sharable
final class ClientOperationsHandler extends ChannelInboundHandlerAdapter {
    static final String CLIENTS = "/clients";
    static final String SESSIONS = "/sessions";
    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;
    /** Bound on an event-loop copy, a route lookup or a session read: a busy node still answers, with 503. */
    static final long ANSWER_TIMEOUT_SECONDS = 10;

    private final OperatorApi api;
    private final AdminMetrics metrics;
    private final EventLog events;

    ClientOperationsHandler(OperatorApi api, AdminMetrics metrics, EventLog events) {
        this.api = api;
        this.metrics = metrics;
        this.events = events;
    }

    /** Whether this handler serves {@code path}. */
    static boolean handles(String path) {
        return CLIENTS.equals(path) || path.startsWith(CLIENTS + "/") || path.startsWith(SESSIONS + "/");
    }

    /** One request being answered: who asked, what, and where the answer goes. */
    private record Call(ChannelHandlerContext ctx, boolean keepAlive, String endpoint, String operator, Object remote,
                        String what) {
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest request) || !request.decoderResult().isSuccess()) {
            ctx.fireChannelRead(msg);
            return;
        }
        // the raw path: a %2F inside an id must stay part of the id (and be refused), not become a separator
        String rawPath = new QueryStringDecoder(request.uri()).rawPath();
        if (!handles(rawPath)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            String operator = ctx.channel().attr(OperatorAuthHandler.OPERATOR).getAndSet(null);
            QueryStringDecoder query = new QueryStringDecoder(request.uri());
            Call call = new Call(ctx, HttpUtil.isKeepAlive(request), AdminMetrics.endpoint(rawPath), operator,
                    ctx.channel().remoteAddress(), request.method() + " " + request.uri());
            route(call, request.method(), rawPath, query);
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void route(Call call, HttpMethod method, String rawPath, QueryStringDecoder query) {
        if (CLIENTS.equals(rawPath)) {
            if (!HttpMethod.GET.equals(method)) {
                refuse(call, HttpResponseStatus.METHOD_NOT_ALLOWED, "method_not_allowed", "/clients takes GET");
                return;
            }
            list(call, query);
            return;
        }
        boolean sessions = rawPath.startsWith(SESSIONS + "/");
        String id = idOf(rawPath.substring((sessions ? SESSIONS : CLIENTS).length() + 1));
        String invalid = checkId(id, "client id");
        if (invalid != null) {
            refuse(call, HttpResponseStatus.BAD_REQUEST, "invalid", invalid);
            return;
        }
        if (sessions) {
            if (!HttpMethod.GET.equals(method)) {
                refuse(call, HttpResponseStatus.METHOD_NOT_ALLOWED, "method_not_allowed", "/sessions/{id} takes GET");
            } else {
                session(call, id);
            }
        } else if (HttpMethod.GET.equals(method)) {
            show(call, id);
        } else if (HttpMethod.DELETE.equals(method)) {
            String discard = first(query, "discard-session", "false");
            if (!"true".equals(discard) && !"false".equals(discard)) {
                refuse(call, HttpResponseStatus.BAD_REQUEST, "invalid", "discard-session must be true or false");
                return;
            }
            kick(call, id, "true".equals(discard));
        } else {
            refuse(call, HttpResponseStatus.METHOD_NOT_ALLOWED, "method_not_allowed",
                    "/clients/{id} takes GET or DELETE");
        }
    }

    /** The percent-decoded id segment, or null when it is not one segment of valid percent-encoded UTF-8. */
    static String idOf(String segment) {
        if (segment.isEmpty() || segment.indexOf('/') >= 0) {
            return null;
        }
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(segment.length());
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c == '%') {
                int hi = i + 2 < segment.length() ? Character.digit(segment.charAt(i + 1), 16) : -1;
                int lo = hi < 0 ? -1 : Character.digit(segment.charAt(i + 2), 16);
                if (lo < 0) {
                    return null;
                }
                bytes.write(hi << 4 | lo);
                i += 2;
            } else if (c < 0x80) {
                bytes.write(c);
            } else {
                return null;
            }
        }
        try {
            // strict: a malformed sequence is refused rather than turned into U+FFFD (another id)
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            return null;
        }
    }

    /** Null when {@code id} may name a device here, else why not (what the operator reads). */
    private String checkId(String id, String what) {
        if (id == null) {
            return what + " must be one path segment of percent-encoded UTF-8";
        }
        if (id.length() > api.maxClientIdLength()) {
            return what + " longer than mqtt.max-client-id-length (" + api.maxClientIdLength() + ")";
        }
        IdentityRules.Violation v = IdentityRules.check(id);
        return v == null ? null : what + " breaks the identity rules (" + v.label() + ")";
    }

    private void list(Call call, QueryStringDecoder query) {
        ChannelRegistry registry = api.registry();
        String prefix = first(query, "prefix", "");
        if (!prefix.isEmpty()) {
            String invalid = checkId(prefix, "prefix");
            if (invalid != null) {
                refuse(call, HttpResponseStatus.BAD_REQUEST, "invalid", invalid);
                return;
            }
        }
        int limit;
        try {
            limit = Integer.parseInt(first(query, "limit", Integer.toString(DEFAULT_LIMIT)));
        } catch (NumberFormatException e) {
            limit = -1;
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            refuse(call, HttpResponseStatus.BAD_REQUEST, "invalid", "limit must be 1 to " + MAX_LIMIT);
            return;
        }
        String cursor = first(query, "cursor", null);
        String after = null;
        if (cursor != null) {
            after = decodeCursor(cursor);
            if (after == null || checkId(after, "cursor") != null || !after.startsWith(prefix)) {
                refuse(call, HttpResponseStatus.BAD_REQUEST, "invalid",
                        "cursor is not one this endpoint returned for this prefix");
                return;
            }
        }
        ChannelRegistry.Page page = registry.page(prefix, after, limit);
        List<Route> routes = new ArrayList<>(page.ids().size());
        for (String id : page.ids()) {
            Channel channel = registry.find(id);
            ConnectionContext c = channel == null ? null : ConnectionContext.of(channel);
            // the route is set before registration and never changes: safe to read here (see LocalRoutes)
            Route route = c == null ? null : c.route();
            if (route != null) {
                routes.add(route);
            }
        }
        String next = page.next() == null ? null : encodeCursor(page.next());
        done(call, HttpResponseStatus.OK, "ok", "clients=" + routes.size(),
                OperatorJson.page(api.nodeId(), routes, next));
    }

    static String encodeCursor(String id) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(id.getBytes(StandardCharsets.UTF_8));
    }

    /** The id a cursor names, or null when it is not one {@link #encodeCursor} made. */
    static String decodeCursor(String cursor) {
        try {
            byte[] bytes = Base64.getUrlDecoder().decode(cursor);
            var decoder = StandardCharsets.UTF_8.newDecoder();
            return decoder.decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        } catch (IllegalArgumentException | java.nio.charset.CharacterCodingException e) {
            return null;
        }
    }

    private void show(Call call, String id) {
        Channel channel = api.registry().find(id);
        if (channel != null) {
            bounded(ClientDetails.read(channel)).whenComplete((details, error) -> {
                if (error != null) {
                    unavailable(call, error);
                } else if (details == null) {
                    // closed meanwhile: the route table may know a newer connection elsewhere
                    showRemote(call, id);
                } else {
                    done(call, HttpResponseStatus.OK, "ok", "local", OperatorJson.client(details));
                }
            });
        } else {
            showRemote(call, id);
        }
    }

    private void showRemote(Call call, String id) {
        lookup(id).whenComplete((route, error) -> {
            if (error != null) {
                unavailable(call, error);
            } else if (route.isEmpty() || route.get().nodeId().equals(api.nodeId())) {
                refuse(call, HttpResponseStatus.NOT_FOUND, "not_found", "client not connected");
            } else {
                done(call, HttpResponseStatus.OK, "ok", "on node " + route.get().nodeId(),
                        OperatorJson.remoteClient(route.get()));
            }
        });
    }

    private void kick(Call call, String id, boolean discardSession) {
        Channel channel = api.registry().find(id);
        if (channel == null) {
            lookup(id).whenComplete((route, error) -> {
                if (error == null && route.isPresent() && !route.get().nodeId().equals(api.nodeId())) {
                    if (api.forwarding() != null) {
                        forwardKick(call, id, discardSession, route.get().nodeId());
                    } else {
                        refuse(call, HttpResponseStatus.CONFLICT, "not_found", "client connected to node "
                                + route.get().nodeId() + "; send the request to that node", route.get().nodeId());
                    }
                } else {
                    refuse(call, HttpResponseStatus.NOT_FOUND, "not_found", "client not connected to this node");
                }
            });
            return;
        }
        bounded(AdministrativeDisconnect.kick(channel, discardSession, api.sessions(), api.metrics()))
                .whenComplete((outcome, error) -> {
                    if (error != null) {
                        unavailable(call, error);
                    } else if (!outcome.closed()) {
                        refuse(call, HttpResponseStatus.NOT_FOUND, "not_found", "client not connected to this node");
                    } else {
                        done(call, HttpResponseStatus.OK, "ok",
                                "kicked" + (outcome.sessionDiscarded() ? ", session discarded" : ""),
                                OperatorJson.kicked(id, api.nodeId(), outcome.sessionDiscarded()));
                    }
                });
    }

    /** The kick run by the node that holds the device, answered with what it did there; bounded like a local one. */
    private void forwardKick(Call call, String id, boolean discardSession, String holder) {
        CompletionStage<OperationForwarding.Forwarded<OperationForwarding.Kick>> stage;
        try {
            stage = api.forwarding().kick(holder, id, discardSession, Duration.ofSeconds(ANSWER_TIMEOUT_SECONDS));
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((f, error) -> {
            Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                    ? error.getCause() : error;
            if (cause instanceof TimeoutException) {
                refuse(call, HttpResponseStatus.GATEWAY_TIMEOUT, "timeout", "no answer from node " + holder
                        + " within " + ANSWER_TIMEOUT_SECONDS + " s", holder);
            } else if (cause instanceof OperationForwarding.Busy) {
                refuse(call, HttpResponseStatus.SERVICE_UNAVAILABLE, "busy", cause.getMessage(), holder);
            } else if (cause != null) {
                refuse(call, HttpResponseStatus.SERVICE_UNAVAILABLE, "failed", "cannot forward to node " + holder
                        + ": " + cause, holder);
            } else if (f.outcome() == null || !f.outcome().closed()) {
                refuse(call, HttpResponseStatus.NOT_FOUND, "not_found", "client not connected to node " + holder,
                        holder);
            } else {
                done(call, HttpResponseStatus.OK, "ok", "kicked on node " + f.nodeId()
                                + (f.outcome().sessionDiscarded() ? ", session discarded" : ""),
                        OperatorJson.kicked(id, f.nodeId(), f.outcome().sessionDiscarded()));
            }
        });
    }

    private void session(Call call, String id) {
        // a certificate-proven device's session is under its id; one proven without a certificate under a prefix
        describe(IdentityProof.CERTIFICATE.sessionKey(id)).thenCompose(s -> s.isPresent()
                        ? CompletableFuture.completedFuture(new Found(IdentityProof.CERTIFICATE, s.get()))
                        : describe(IdentityProof.NO_CERTIFICATE.sessionKey(id)).thenApply(
                                n -> n.map(x -> new Found(IdentityProof.NO_CERTIFICATE, x)).orElse(null)))
                .whenComplete((found, error) -> {
                    Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause()
                            != null ? error.getCause() : error;
                    if (cause instanceof UnsupportedOperationException) {
                        refuse(call, HttpResponseStatus.NOT_IMPLEMENTED, "failed",
                                "the configured session store cannot describe sessions");
                    } else if (cause != null) {
                        unavailable(call, cause);
                    } else if (found == null) {
                        refuse(call, HttpResponseStatus.NOT_FOUND, "not_found", "no persistent session");
                    } else {
                        String proof = found.proof().name().toLowerCase(Locale.ROOT);
                        done(call, HttpResponseStatus.OK, "ok", "session", OperatorJson.session(id, proof,
                                found.summary()));
                    }
                });
    }

    private record Found(IdentityProof proof, SessionStore.SessionSummary summary) {
    }

    private CompletableFuture<Optional<SessionStore.SessionSummary>> describe(String key) {
        CompletionStage<Optional<SessionStore.SessionSummary>> stage;
        try {
            stage = api.sessions().describe(key);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        return bounded(stage.toCompletableFuture());
    }

    private CompletableFuture<Optional<Route>> lookup(String id) {
        CompletionStage<Optional<Route>> stage;
        try {
            stage = api.routes().lookup(id);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        return bounded(stage.toCompletableFuture());
    }

    private static <T> CompletableFuture<T> bounded(CompletableFuture<T> f) {
        // a copy: orTimeout on the caller's future would fail it for its other users too
        return f.thenApply(x -> x).orTimeout(ANSWER_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    private void unavailable(Call call, Throwable error) {
        Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
        refuse(call, HttpResponseStatus.SERVICE_UNAVAILABLE, "failed", cause instanceof TimeoutException
                ? "no answer within " + ANSWER_TIMEOUT_SECONDS + " s" : "lookup failed: " + cause);
    }

    private static String first(QueryStringDecoder query, String name, String otherwise) {
        List<String> values = query.parameters().get(name);
        return values == null || values.isEmpty() ? otherwise : values.get(0);
    }

    private void done(Call call, HttpResponseStatus status, String result, String outcome, OperatorJson.Body body) {
        metrics.count(call.endpoint(), result);
        events.operation(call.operator(), call.remote(), call.what(), outcome);
        AdminResponses.respond(call.ctx(), call.keepAlive(), OperatorJson.response(status, body));
    }

    private void refuse(Call call, HttpResponseStatus status, String result, String reason) {
        refuse(call, status, result, reason, null);
    }

    private void refuse(Call call, HttpResponseStatus status, String result, String reason, String node) {
        metrics.count(call.endpoint(), result);
        events.operation(call.operator(), call.remote(), call.what(), "refused: " + reason);
        FullHttpResponse response = OperatorJson.error(status, reason, node);
        AdminResponses.respond(call.ctx(), call.keepAlive(), response);
    }
}
