package io.mqttgw.core.admin;

import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.OperationForwarding;
import io.mqttgw.core.spi.RouteStore;
import io.mqttgw.core.spi.SessionStore;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * What the operator API's endpoints reach into: this node's sessions (an ordered registry, so the client list pages),
 * the route table (which node holds a client; shared with the Redis route store), the session store, and the config
 * reload, the drain.
 *
 * @param maxClientIdLength longest id a request may name ({@code mqtt.max-client-id-length})
 * @param reload            re-reads the config file for the named operator, or null when there is no file to re-read
 * @param drain             starts the node's drain, or null where the node cannot drain
 * @param forwarding        sends a downlink or kick to the node that holds the device, or null where the route
 *                          store cannot (the operator is then told which node to call)
 * @param downlinkTimeout   longest a forwarded downlink waits for the holder's answer: as long as the holder itself
 *                          may take for a QoS 1 message ({@code downlink.retry-interval} times one more than
 *                          {@code downlink.max-retries})
 */
public record OperatorApi(String nodeId, ChannelRegistry registry, RouteStore routes, SessionStore sessions,
                          GatewayMetrics metrics, int maxClientIdLength,
                          Function<String, CompletionStage<ReloadReport>> reload, Drain drain,
                          OperationForwarding forwarding, Duration downlinkTimeout) {

    /** Without forwarding. */
    public OperatorApi(String nodeId, ChannelRegistry registry, RouteStore routes, SessionStore sessions,
                       GatewayMetrics metrics, int maxClientIdLength,
                       Function<String, CompletionStage<ReloadReport>> reload, Drain drain) {
        this(nodeId, registry, routes, sessions, metrics, maxClientIdLength, reload, drain, null, Duration.ZERO);
    }

    /** Starts the node's drain; returns at once (the drain runs on a thread of its own). Any thread. */
    public interface Drain {
        /**
         * @param operator who asked (for the log)
         * @param exit     whether the node exits once drained, or stays up not ready; the first request decides
         */
        DrainReport start(String operator, boolean exit);
    }

    /**
     * What a drain request started.
     *
     * @param alreadyDraining    the node was leaving already (SIGTERM or an earlier request)
     * @param exitWhenDrained    whether the node exits once its devices are closed
     * @param devices            sessions open when the request came
     * @param readyGraceMillis   how long devices are still accepted while {@code /health/ready} answers 503
     * @param drainRatePerSecond devices closed a second after the grace
     * @param serverReference    the MQTT 5.0 Server Reference told to devices (0x9C), or null (0x8B)
     */
    public record DrainReport(boolean alreadyDraining, boolean exitWhenDrained, long devices, long readyGraceMillis,
                              int drainRatePerSecond, String serverReference) {
    }

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
