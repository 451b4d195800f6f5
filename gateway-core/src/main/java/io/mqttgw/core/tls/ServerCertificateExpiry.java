package io.mqttgw.core.tls;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.config.GatewayConfig;
import java.security.cert.X509Certificate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dates of the TLS listener's server certificate as operators see them: the expiry gauge, the warning
 * {@code check-config} prints, and a log line once when the certificate in use enters the warning window or expires
 * (and when a renewed one is in place). Told the certificate of each context {@link SslContextStore} builds
 * ({@link #use}, on the building thread); the gauge reads it from any thread; {@link #check} is called by the
 * building thread and the file watcher.
 */
final class ServerCertificateExpiry {
    /** The store's logger: these lines have always been the TLS listener's. */
    private static final Logger LOG = LoggerFactory.getLogger(SslContextStore.class);

    private final GatewayConfig.TlsListener config;
    /** The server certificate of the context in place. */
    private volatile X509Certificate serverCertificate;
    /** What was last logged about the server certificate's dates: ok, expiring or expired. Guarded by {@code this}. */
    private String lastExpiryState = "ok";

    ServerCertificateExpiry(GatewayConfig.TlsListener config) {
        this.config = config;
    }

    void use(X509Certificate certificate) {
        serverCertificate = certificate;
    }

    /** Registers the expiry gauge; once the first certificate is in use. */
    void register(MeterRegistry meters) {
        Gauge.builder("mqttgw.tls.server.certificate.expiry", this, s -> (s.serverCertificate.getNotAfter().getTime()
                        - System.currentTimeMillis()) / 1000.0)
                .tag("listener", "tls").baseUnit("seconds")
                .description("Time until the notAfter of the listener's server certificate; negative once past")
                .register(meters);
    }

    /**
     * A warning when the server certificate in use ends within {@link TlsFiles#SERVER_EXPIRY_WARNING}, else null:
     * {@code check-config} prints it, the store logs it.
     */
    String warning() {
        return TlsFiles.serverExpiryWarning("listener.tls.cert-file", config.certFile(), serverCertificate,
                System.currentTimeMillis());
    }

    /**
     * Logs once when the server certificate in use enters the warning window or expires (and when a renewed one is
     * in place); called at build and by the file watcher, so the log says it before devices start failing.
     */
    synchronized void check() {
        X509Certificate certificate = serverCertificate;
        long now = System.currentTimeMillis();
        String warning = warning();
        String state = now > certificate.getNotAfter().getTime() ? "expired" : warning != null ? "expiring" : "ok";
        if (!state.equals(lastExpiryState)) {
            switch (state) {
                case "expired" -> LOG.error("listener.tls.cert-file={}: the server certificate in use expired on {}: "
                        + "devices refuse every new handshake until a renewed certificate is in the file",
                        config.certFile(), certificate.getNotAfter().toInstant());
                case "expiring" -> LOG.warn(warning);
                default -> LOG.info("listener.tls.cert-file={}: the server certificate in use is valid until {}",
                        config.certFile(), certificate.getNotAfter().toInstant());
            }
            lastExpiryState = state;
        }
    }
}
