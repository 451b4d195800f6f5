package io.mqttgw.core.bootstrap;

import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.admission.AdmissionControl;
import io.mqttgw.core.admission.HandshakeBudgetHandler;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.mqttgw.core.pipeline.DeviceChannelInitializer;
import io.mqttgw.core.registry.ChannelRegistry;
import io.mqttgw.core.spi.ProviderContext;
import io.mqttgw.core.spi.Providers;
import io.mqttgw.core.tls.RevokedConnectionSweep;
import io.mqttgw.core.tls.SslContextStore;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Binds the device listeners, each with its channel initializer, and keeps the TLS listener's material current while
 * the node runs: the session-ticket keys rotated, the certificate files and CRLs watched, and the connections a
 * reloaded CRL revokes closed at a paced rate. Without TLS only the TCP listener (when configured) is bound.
 *
 * <p>Made, bound and stopped by the thread that starts and stops the node; the rotation, the watch and the sweep
 * then run on the housekeeping thread, and the sweep closes each connection on its own event loop.
 */
final class DeviceListenerBinding {
    /** What the device listeners are bound with: the ports, what every device pipeline shares, the admission. */
    record Pipelines(DeviceListeners listeners, SessionServices services, AdmissionControl admission) {
    }

    /**
     * What the TLS listener's upkeep needs: the ticket keys' source ({@code found}, {@code context}) and meters, the
     * registry and event log the revocation sweep walks and writes, and the thread all of it is scheduled on.
     */
    record TlsUpkeep(ScheduledExecutorService housekeeping, Providers found, ProviderContext context,
                     MeterRegistry meters, ChannelRegistry registry, EventLog events) {
    }

    private final SslContextStore tls;
    private SessionTicketKeys ticketKeys;

    /** @param tls the TLS listener's contexts, or null when the node has no TLS listener */
    DeviceListenerBinding(SslContextStore tls) {
        this.tls = tls;
    }

    /**
     * Starts the ticket keys before the TLS listener binds (so the first handshake already gets a shared key), then
     * binds the listeners; returns once they are bound.
     */
    void bind(GatewayConfig config, Pipelines pipelines, TlsUpkeep upkeep) throws InterruptedException {
        if (tls != null) {
            if (!config.tls().ticketKeyRotation().isZero()) {
                ticketKeys = SessionTicketKeys.start(config, tls, upkeep.found(), upkeep.context(),
                        upkeep.housekeeping(), upkeep.meters());
            }
            pipelines.listeners().bindTls(new DeviceChannelInitializer("tls", pipelines.services(), tls,
                    new HandshakeBudgetHandler(pipelines.admission()), config.tls().proxyProtocol()));
            // the registry is walked again once a connection that passed its handshake under the old list has
            // had time to register (CONNECT and its auth call)
            tls.onRevocationReload(new RevokedConnectionSweep(upkeep.registry(), upkeep.events(),
                    upkeep.housekeeping(), config.tls().crlDisconnectRate(),
                    config.mqtt().connectTimeout().plus(config.auth().timeout()).plusSeconds(1)));
            tls.watch(upkeep.housekeeping());
        }
        if (config.tcp().enabled()) {
            pipelines.listeners().bindTcp(new DeviceChannelInitializer("tcp", pipelines.services(), null, null,
                    config.tcp().proxyProtocol()));
        }
    }

    /** No more file checks or key rotations; first at shutdown. The contexts stay until the loops have stopped. */
    void stopUpkeep() {
        if (tls != null) {
            tls.stopWatching();
        }
        if (ticketKeys != null) {
            ticketKeys.close();
        }
    }
}
