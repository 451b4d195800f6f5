package io.mqttgw.core.protocol;

import io.mqttgw.core.admission.AdmissionControl;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.Authenticator;
import io.mqttgw.core.spi.RouteStore;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.spi.UplinkSink;
import java.util.concurrent.atomic.AtomicLong;

/** What the protocol handlers work with; one instance per gateway node, shared by all channels. */
public record SessionServices(GatewayConfig config, GatewayMetrics metrics, ChannelRegistry registry,
                              Authenticator authenticator, RouteStore routes, UplinkSink sink, EventLog events,
                              AtomicLong epochs, AdmissionControl admission,
                              SessionStore sessions, DelayedWills wills) {

    /** With the node's delayed MQTT 5.0 wills bounded by {@code session.max-sessions} (and measured). */
    public SessionServices(GatewayConfig config, GatewayMetrics metrics, ChannelRegistry registry,
                           Authenticator authenticator, RouteStore routes, UplinkSink sink, EventLog events,
                           AtomicLong epochs, AdmissionControl admission, SessionStore sessions) {
        this(config, metrics, registry, authenticator, routes, sink, events, epochs, admission, sessions,
                delayedWills(config, metrics));
    }

    private static DelayedWills delayedWills(GatewayConfig config, GatewayMetrics metrics) {
        DelayedWills wills = new DelayedWills(config.session().maxSessions());
        metrics.gauge("mqttgw.wills.delayed", "MQTT 5.0 wills waiting for their will delay interval", wills::size);
        metrics.gauge("mqttgw.wills.delay.overflow", "MQTT 5.0 wills published without their delay because "
                + "session.max-sessions were waiting", wills::overflowCount);
        return wills;
    }

    /** Epochs start at the node's start time in microseconds, so they also increase across restarts. */
    public static AtomicLong newEpochSource() {
        return new AtomicLong(System.currentTimeMillis() * 1000L);
    }
}
