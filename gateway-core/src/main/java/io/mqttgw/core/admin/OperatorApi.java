package io.mqttgw.core.admin;

import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.RouteStore;
import io.mqttgw.core.spi.SessionStore;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * What the operator API's endpoints reach into: this node's sessions (an ordered registry, so the client list pages),
 * the route table (which node holds a client; shared with the Redis route store), the session store, and the config
 * reload.
 *
 * @param maxClientIdLength longest id a request may name ({@code mqtt.max-client-id-length})
 * @param reload            re-reads the config file for the named operator, or null when there is no file to re-read
 */
public record OperatorApi(String nodeId, ChannelRegistry registry, RouteStore routes, SessionStore sessions,
                          GatewayMetrics metrics, int maxClientIdLength,
                          Function<String, CompletionStage<ReloadReport>> reload) {

    /**
     * What a reload did.
     *
     * @param outcome         {@code applied}, {@code unchanged} or {@code refused}
     * @param applied         the changed keys now in effect
     * @param restartRequired the changed keys that take effect only after a restart
     * @param error           why the file was refused (the same line startup prints), or null
     */
    public record ReloadReport(String outcome, java.util.List<String> applied,
                               java.util.List<String> restartRequired, String error) {
    }
}
