package io.mqttgw.core.admin;

import io.mqttgw.core.events.EventLog;
import io.netty.channel.ChannelHandler;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.util.List;

/**
 * {@code POST /config/reload}: re-reads the config file and applies the keys that may change at runtime, as
 * {@code SIGHUP} does; answers with what was applied, which changed keys need a restart, or (422) why the file was
 * refused. The reload itself runs off the admin thread; the answer is written when it completes. Stateless, shared;
 * runs on the admin thread.
 */
@ChannelHandler.Sharable
final class ConfigReloadHandler extends SinglePathOperationHandler {
    static final String RELOAD = "/config/reload";

    private final OperatorApi api;

    ConfigReloadHandler(OperatorApi api, AdminMetrics metrics, EventLog events) {
        super(RELOAD, "reload", metrics, events);
        this.api = api;
    }

    @Override
    void handle(Call call) {
        if (api.reload() == null) {
            call.refuse(HttpResponseStatus.NOT_FOUND, "not_found", "the gateway was started without a config file");
            return;
        }
        api.reload().apply(call.operator()).whenComplete((report, error) -> {
            if (error != null) {
                call.answer("failed", "failed: " + error, OperatorJson.error(
                        HttpResponseStatus.INTERNAL_SERVER_ERROR, "reload failed: " + error, null));
                return;
            }
            boolean refused = report.error() != null;
            call.answer(refused ? "invalid" : "ok", report.outcome(), OperatorJson.response(
                    refused ? HttpResponseStatus.UNPROCESSABLE_ENTITY : HttpResponseStatus.OK, g -> {
                        g.writeStartObject();
                        g.writeStringField("outcome", report.outcome());
                        if (refused) {
                            g.writeStringField("error", report.error());
                        }
                        strings(g, "applied", report.applied());
                        strings(g, "restartRequired", report.restartRequired());
                        g.writeEndObject();
                    }));
        });
    }

    private static void strings(com.fasterxml.jackson.core.JsonGenerator g, String name, List<String> values)
            throws java.io.IOException {
        g.writeArrayFieldStart(name);
        for (String v : values) {
            g.writeString(v);
        }
        g.writeEndArray();
    }
}
