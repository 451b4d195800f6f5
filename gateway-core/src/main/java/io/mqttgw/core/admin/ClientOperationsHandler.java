package io.mqttgw.core.admin;

import io.mqttgw.core.events.EventLog;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import java.util.List;

/**
 * The operator API on clients and sessions, for an authenticated operator ({@link OperatorAuthHandler} ran before):
 * {@code GET /clients?prefix=&limit=&cursor=} pages through this node's sessions in client-id order;
 * {@code GET /clients/{id}} shows one (read on its event loop; from the route table when another node holds it);
 * {@code DELETE /clients/{id}[?discard-session=true]} kicks it (reason {@code administrative}; on the node that holds
 * it, forwarded there where the route store can carry it, else refused with 409 naming that node); {@code GET
 * /sessions/{id}} shows a stored persistent session. Other requests go on to {@link OperationsHandler}. Every
 * request, answered or refused, is written to the event log with its operator and counted ({@link OperatorCall}).
 *
 * <p>This class reads and checks the request; {@link ClientQueries} and {@link ClientKick} carry it out.
 *
 * <p>Stateless, shared by the connections; runs on the admin thread and never waits there: per-connection state is
 * copied on the device's event loop and route or session lookups are asynchronous, each bounded by
 * {@link BoundedAnswers#TIMEOUT_SECONDS}, and the answer is written when they complete.
 */
@ChannelHandler.Sharable
final class ClientOperationsHandler extends ChannelInboundHandlerAdapter {
    static final String CLIENTS = "/clients";
    static final String SESSIONS = "/sessions";
    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1000;

    private final OperatorApi api;
    private final AdminMetrics metrics;
    private final EventLog events;
    private final ClientQueries queries;
    private final ClientKick kicks;

    ClientOperationsHandler(OperatorApi api, AdminMetrics metrics, EventLog events) {
        this.api = api;
        this.metrics = metrics;
        this.events = events;
        this.queries = new ClientQueries(api);
        this.kicks = new ClientKick(api);
    }

    /** Whether this handler serves {@code path}. */
    static boolean handles(String path) {
        return CLIENTS.equals(path) || path.startsWith(CLIENTS + "/") || path.startsWith(SESSIONS + "/");
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
            OperatorCall call = new OperatorCall(ctx, HttpUtil.isKeepAlive(request), AdminMetrics.endpoint(rawPath),
                    operator, ctx.channel().remoteAddress(), request.method() + " " + request.uri(), metrics, events);
            route(call, request.method(), rawPath, query);
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void route(OperatorCall call, HttpMethod method, String rawPath, QueryStringDecoder query) {
        if (CLIENTS.equals(rawPath)) {
            if (!HttpMethod.GET.equals(method)) {
                call.refuse(HttpResponseStatus.METHOD_NOT_ALLOWED, "method_not_allowed", "/clients takes GET");
                return;
            }
            list(call, query);
            return;
        }
        boolean sessions = rawPath.startsWith(SESSIONS + "/");
        String id = ClientIdSyntax.idOf(rawPath.substring((sessions ? SESSIONS : CLIENTS).length() + 1));
        String invalid = checkId(id, "client id");
        if (invalid != null) {
            call.refuse(HttpResponseStatus.BAD_REQUEST, "invalid", invalid);
            return;
        }
        if (sessions) {
            if (!HttpMethod.GET.equals(method)) {
                call.refuse(HttpResponseStatus.METHOD_NOT_ALLOWED, "method_not_allowed",
                        "/sessions/{id} takes GET");
            } else {
                queries.session(call, id);
            }
        } else if (HttpMethod.GET.equals(method)) {
            queries.show(call, id);
        } else if (HttpMethod.DELETE.equals(method)) {
            String discard = first(query, "discard-session", "false");
            if (!"true".equals(discard) && !"false".equals(discard)) {
                call.refuse(HttpResponseStatus.BAD_REQUEST, "invalid", "discard-session must be true or false");
                return;
            }
            kicks.kick(call, id, "true".equals(discard));
        } else {
            call.refuse(HttpResponseStatus.METHOD_NOT_ALLOWED, "method_not_allowed",
                    "/clients/{id} takes GET or DELETE");
        }
    }

    private String checkId(String id, String what) {
        return ClientIdSyntax.check(id, what, api.maxClientIdLength());
    }

    /** {@code GET /clients}: the paging arguments checked here, the page read by {@link ClientQueries}. */
    private void list(OperatorCall call, QueryStringDecoder query) {
        String prefix = first(query, "prefix", "");
        if (!prefix.isEmpty()) {
            String invalid = checkId(prefix, "prefix");
            if (invalid != null) {
                call.refuse(HttpResponseStatus.BAD_REQUEST, "invalid", invalid);
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
            call.refuse(HttpResponseStatus.BAD_REQUEST, "invalid", "limit must be 1 to " + MAX_LIMIT);
            return;
        }
        String cursor = first(query, "cursor", null);
        String after = null;
        if (cursor != null) {
            after = ClientIdSyntax.decodeCursor(cursor);
            if (after == null || checkId(after, "cursor") != null || !after.startsWith(prefix)) {
                call.refuse(HttpResponseStatus.BAD_REQUEST, "invalid",
                        "cursor is not one this endpoint returned for this prefix");
                return;
            }
        }
        queries.page(call, prefix, after, limit);
    }

    private static String first(QueryStringDecoder query, String name, String otherwise) {
        List<String> values = query.parameters().get(name);
        return values == null || values.isEmpty() ? otherwise : values.get(0);
    }
}
