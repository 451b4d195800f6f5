package io.mqttgw.core.mqtt.session;

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
                              SessionStore sessions, LiveConfig live, DelayedWills wills) {

    /** Services with the node's delayed MQTT 5.0 wills bounded by {@code session.max-sessions} (and measured). */
    public SessionServices(GatewayConfig config, GatewayMetrics metrics, ChannelRegistry registry,
                           Authenticator authenticator, RouteStore routes, UplinkSink sink, EventLog events,
                           AtomicLong epochs, AdmissionControl admission, SessionStore sessions, LiveConfig live) {
        this(config, metrics, registry, authenticator, routes, sink, events, epochs, admission, sessions, live,
                delayedWills(config, metrics));
    }

    /** Services whose configuration never changes (tests, a node started without a file). */
    public SessionServices(GatewayConfig config, GatewayMetrics metrics, ChannelRegistry registry,
                           Authenticator authenticator, RouteStore routes, UplinkSink sink, EventLog events,
                           AtomicLong epochs, AdmissionControl admission, SessionStore sessions) {
        this(config, metrics, registry, authenticator, routes, sink, events, epochs, admission, sessions,
                new LiveConfig(config));
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
