package io.mqttgw.core.admin;

import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.spi.RouteCheck;
import io.netty.channel.ChannelHandler;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;

/**
 * {@code POST /routes/verify[?repair=true]}: compares the route table with this node's live sessions
 * ({@link io.mqttgw.core.spi.RouteStore#verify}) and answers what differs. The check runs on the route store's own
 * thread; the answer is written when it completes, never blocking the admin thread. Stateless, shared; runs on
 * the admin thread.
 */
@ChannelHandler.Sharable
final class RouteVerifyHandler extends SinglePathOperationHandler {
    static final String VERIFY = "/routes/verify";

    private final OperatorApi api;

    RouteVerifyHandler(OperatorApi api, AdminMetrics metrics, EventLog events) {
        super(VERIFY, "routes_verify", metrics, events);
        this.api = api;
    }

    @Override
    void handle(Call call) {
        Map<String, List<String>> parameters = call.query().parameters();
        String bad = badFlagQuery(parameters, "repair");
        if (bad != null) {
            call.refuse(HttpResponseStatus.BAD_REQUEST, "invalid", bad);
            return;
        }
        boolean repair = flag(parameters, "repair", false);
        api.routes().verify(repair).whenComplete((check, error) -> {
            if (error != null) {
                Throwable cause = error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error;
                HttpResponseStatus status = cause instanceof UnsupportedOperationException
                        ? HttpResponseStatus.NOT_IMPLEMENTED : cause instanceof RouteCheck.AlreadyRunning
                        ? HttpResponseStatus.CONFLICT : HttpResponseStatus.SERVICE_UNAVAILABLE;
                call.answer(status == HttpResponseStatus.NOT_IMPLEMENTED ? "not_found"
                        : status == HttpResponseStatus.CONFLICT ? "conflict" : "failed", "failed: " + cause,
                        OperatorJson.error(status, String.valueOf(cause.getMessage()), null));
                return;
            }
            call.answer("ok", check.found() + " differences" + (repair ? ", " + check.repaired() + " repaired" : ""),
                    OperatorJson.response(HttpResponseStatus.OK, g -> {
                        g.writeStartObject();
                        g.writeStringField("node", check.nodeId());
                        g.writeBooleanField("complete", check.complete());
                        g.writeNumberField("live", check.live());
                        g.writeNumberField("indexed", check.indexed());
                        g.writeNumberField("scanned", check.scanned());
                        g.writeNumberField("found", check.found());
                        g.writeNumberField("repaired", check.repaired());
                        g.writeNumberField("tookMillis", check.tookMillis());
                        g.writeArrayFieldStart("differences");
                        for (RouteCheck.Difference d : check.differences()) {
                            g.writeStartObject();
                            g.writeStringField("kind", d.kind().name().toLowerCase(java.util.Locale.ROOT));
                            g.writeStringField("clientId", d.clientId());
                            if (d.routeNode() != null) {
                                g.writeStringField("routeNode", d.routeNode());
                                g.writeNumberField("routeEpoch", d.routeEpoch());
                            }
                            if (d.liveEpoch() != 0) {
                                g.writeNumberField("liveEpoch", d.liveEpoch());
                            }
                            if (repair) {
                                g.writeBooleanField("repaired", d.repaired());
                            }
                            g.writeEndObject();
                        }
                        g.writeEndArray();
                        g.writeEndObject();
                    }));
        });
    }
}
