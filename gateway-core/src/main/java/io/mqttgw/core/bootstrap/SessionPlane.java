package io.mqttgw.core.bootstrap;

import io.mqttgw.core.admission.AdmissionControl;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.config.LiveConfig;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.mqtt.downlink.DownlinkDispatcher;
import io.mqttgw.core.mqtt.downlink.FleetHandOff;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.mqttgw.core.mqtt.session.WillPublication;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.registry.LocalRoutes;
import io.mqttgw.core.registry.LocalSessions;
import io.mqttgw.core.spi.DelayedWillStore;
import java.time.Duration;
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
    /** Bound on asking the route table which node holds a device: a slow store still lets the message be kept. */
    private static final Duration LOOKUP_TIMEOUT = Duration.ofSeconds(10);

    private final DownlinkDispatcher downlink;
    private final SessionServices services;

    SessionPlane(GatewayConfig config, GatewayMetrics metrics, ChannelRegistry registry, NodeProviders providers,
                 AdmissionControl admission, LiveConfig live, EventLog events, ScheduledExecutorService background) {
        providers.routes().start(new LocalRoutes(registry));
        providers.sessions().start(new LocalSessions(registry));
        FleetHandOff handOff = providers.routes().forwarding().map(forwarding -> new FleetHandOff(config.nodeId(),
                providers.routes(), forwarding, holderBound(config.downlink()), LOOKUP_TIMEOUT, metrics)).orElse(null);
        this.downlink = new DownlinkDispatcher(registry, config.downlink(), metrics, background, providers.sessions(),
                config.mqtt().topicLimits(), handOff);
        this.services = new SessionServices(config, metrics, registry, providers.authenticator(), providers.routes(),
                providers.sink(), events, SessionServices.newEpochSource(), admission, providers.sessions(), live);
        DelayedWillStore.of(providers.sessions()).ifPresent(fleet -> fleet.start(new WillPublication(metrics,
                providers.sink())));
    }

    /**
     * How long the holder of a device may take over a message handed to it: as long as its own delivery may take
     * (each retry interval waited out), so a device that acknowledges late is not sent the message twice.
     */
    static Duration holderBound(GatewayConfig.Downlink downlink) {
        return downlink.retryInterval().multipliedBy(downlink.maxRetries() + 1L);
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
