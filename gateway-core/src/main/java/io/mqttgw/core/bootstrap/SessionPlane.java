package io.mqttgw.core.bootstrap;

import io.mqttgw.core.admission.AdmissionControl;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.config.LiveConfig;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.mqtt.downlink.DownlinkDispatcher;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.mqttgw.core.mqtt.session.WillPublication;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.registry.LocalRoutes;
import io.mqttgw.core.registry.LocalSessions;
import io.mqttgw.core.spi.DelayedWillStore;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The session side of the node wired to its stores: the route and session stores told where to find what this node
 * holds, the downlink dispatcher, the services every device pipeline shares, and the MQTT 5.0 wills (a fleet store's
 * delayed wills published through the sink; this node's own published when it stops).
 *
 * <p>Made and stopped by the thread that starts and stops the node. The services run on the device event loops, the
 * dispatcher's broadcast pacing on the housekeeping thread.
 */
final class SessionPlane {
    private final DownlinkDispatcher downlink;
    private final SessionServices services;

    SessionPlane(GatewayConfig config, GatewayMetrics metrics, ChannelRegistry registry, NodeProviders providers,
                 AdmissionControl admission, LiveConfig live, EventLog events, ScheduledExecutorService background) {
        providers.routes().start(new LocalRoutes(registry));
        providers.sessions().start(new LocalSessions(registry));
        this.downlink = new DownlinkDispatcher(registry, config.downlink(), metrics, background, providers.sessions(),
                config.mqtt().topicLimits());
        this.services = new SessionServices(config, metrics, registry, providers.authenticator(), providers.routes(),
                providers.sink(), events, SessionServices.newEpochSource(), admission, providers.sessions(), live);
        DelayedWillStore.of(providers.sessions()).ifPresent(fleet -> fleet.start(new WillPublication(metrics,
                providers.sink())));
    }

    /** Where downlink messages for this node's devices go in. */
    DownlinkDispatcher downlink() {
        return downlink;
    }

    /** What the device pipelines share. */
    SessionServices services() {
        return services;
    }

    /** Publishes the wills still waiting for their delay: nobody on this node will see their devices come back. */
    void publishWaitingWills() {
        services.wills().publishAll();
    }
}
