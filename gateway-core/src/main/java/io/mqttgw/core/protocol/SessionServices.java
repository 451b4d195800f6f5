package io.mqttgw.core.protocol;

import io.mqttgw.core.admission.AdmissionControl;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.config.LiveConfig;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.Authenticator;
import io.mqttgw.core.spi.RouteStore;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.spi.UplinkSink;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the protocol handlers work with; one instance per gateway node, shared by all channels. {@code config} is the
 * snapshot the node started with; {@code live} is where the keys a reload may change are read
 * ({@code acl.publish}, {@code acl.subscribe}).
 */
public record SessionServices(GatewayConfig config, GatewayMetrics metrics, ChannelRegistry registry,
                              Authenticator authenticator, RouteStore routes, UplinkSink sink, EventLog events,
                              AtomicLong epochs, AdmissionControl admission,
                              SessionStore sessions, LiveConfig live) {

    /** Services whose configuration never changes (tests, a node started without a file). */
    public SessionServices(GatewayConfig config, GatewayMetrics metrics, ChannelRegistry registry,
                           Authenticator authenticator, RouteStore routes, UplinkSink sink, EventLog events,
                           AtomicLong epochs, AdmissionControl admission, SessionStore sessions) {
        this(config, metrics, registry, authenticator, routes, sink, events, epochs, admission, sessions,
                new LiveConfig(config));
    }

    /** Epochs start at the node's start time in microseconds, so they also increase across restarts. */
    public static AtomicLong newEpochSource() {
        return new AtomicLong(System.currentTimeMillis() * 1000L);
    }
}
