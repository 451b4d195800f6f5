package io.mqttgw.core.admin;

import io.mqttgw.core.events.EventLog;
import io.netty.channel.ChannelHandler;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /drain[?exit=false]}: the node leaves as on SIGTERM ({@code /health/ready} 503, devices still accepted
 * for {@code shutdown.ready-grace}, then closed at {@code shutdown.drain-rate}) and exits once drained, or with
 * {@code exit=false} stays up, not ready, until it is stopped. Answers 202 at once with what the drain will do; a
 * second call while draining answers the same (the first call's {@code exit} holds). The drain runs on a thread of
 * its own, never the admin thread. Stateless, shared; runs on the admin thread.
 */
@ChannelHandler.Sharable
final class DrainHandler extends SinglePathOperationHandler {
    static final String DRAIN = "/drain";

    private final OperatorApi api;

    DrainHandler(OperatorApi api, AdminMetrics metrics, EventLog events) {
        super(DRAIN, "drain", metrics, events);
        this.api = api;
    }

    @Override
    void handle(Call call) {
        if (api.drain() == null) {
            call.refuse(HttpResponseStatus.NOT_FOUND, "not_found", "drain is not available here");
            return;
        }
        Map<String, List<String>> parameters = call.query().parameters();
        String bad = badFlagQuery(parameters, "exit");
        if (bad != null) {
            call.refuse(HttpResponseStatus.BAD_REQUEST, "invalid", bad);
            return;
        }
        boolean exit = flag(parameters, "exit", true);
        OperatorApi.DrainReport report = api.drain().start(call.operator(), exit);
        call.answer("ok", report.alreadyDraining() ? "already draining" : "draining",
                OperatorJson.response(HttpResponseStatus.ACCEPTED, g -> {
                    g.writeStartObject();
                    g.writeStringField("state", report.alreadyDraining() ? "already_draining" : "draining");
                    g.writeBooleanField("exit", report.exitWhenDrained());
                    g.writeNumberField("devices", report.devices());
                    g.writeNumberField("readyGraceMillis", report.readyGraceMillis());
                    g.writeNumberField("drainRate", report.drainRatePerSecond());
                    if (report.serverReference() != null) {
                        g.writeStringField("serverReference", report.serverReference());
                    }
                    g.writeEndObject();
                }));
    }
}
