package io.mqttgw.core.bootstrap;

import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.spi.ProviderContext;
import io.mqttgw.core.spi.Providers;
import io.mqttgw.core.spi.TicketKeySource;
import io.mqttgw.core.tls.SslContextStore;
import io.mqttgw.core.tls.TicketKeyRotation;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS listener's session-ticket keys: taken from the configured source (shared by the fleet, so a device resumes
 * on any node) and rotated on the housekeeping thread. Started before the listeners bind, so the first handshake
 * already gets a shared key; closed at shutdown, the rotation before its source.
 *
 * <p>Started and closed by the thread that starts and stops the node; the rotation itself runs on the housekeeping
 * thread it is given.
 */
final class SessionTicketKeys implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SessionTicketKeys.class);

    private final TicketKeySource source;
    private final TicketKeyRotation rotation;

    private SessionTicketKeys(TicketKeySource source, TicketKeyRotation rotation) {
        this.source = source;
        this.rotation = rotation;
    }

    /**
     * The keys rotated from now on, or null when the TLS engine keeps keys of its own (said in the log: resumption
     * then works on this process only).
     */
    static SessionTicketKeys start(GatewayConfig config, SslContextStore tls, Providers providers,
                                   ProviderContext context, ScheduledExecutorService background,
                                   MeterRegistry meters) {
        if (!tls.supportsTicketKeys()) {
            LOG.warn("listener.tls.engine {} keeps its own session-ticket keys: listener.tls.ticket-key-rotation "
                    + "does not apply (resumption on this process only)", tls.provider());
            return null;
        }
        TicketKeySource source = providers.ticketKeySource(config.tls().ticketKeySource(), config.routesProvider())
                .create(context);
        TicketKeyRotation rotation = null;
        try {
            rotation = new TicketKeyRotation(config.tls().ticketKeyRotation(), config.tls().sessionTimeout(),
                    source, tls::ticketKeys, System::currentTimeMillis, meters);
            rotation.start(background);
            return new SessionTicketKeys(source, rotation);
        } catch (RuntimeException | Error e) {
            // the node's close never sees what was made here: release it before the failed start goes on
            new SessionTicketKeys(source, rotation).close();
            throw e;
        }
    }

    @Override
    public void close() {
        if (rotation != null) {
            rotation.close();
        }
        source.close();
    }
}
