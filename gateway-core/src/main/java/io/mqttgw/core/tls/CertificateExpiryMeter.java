package io.mqttgw.core.tls;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.registry.ChannelRegistry;
import java.time.Duration;

/**
 * How soon the certificates of connected devices expire: {@code mqttgw_device_certificates_expiring} (sessions whose
 * certificate ends within {@code identity.expiry-warning}) and {@code mqttgw_device_certificate_soonest_expiry_seconds}
 * (time left on the soonest). Computed by walking the registry at scrape time, at most once per 10 s, on the admin
 * thread; the certificate's expiry of a session is set before it is registered and never changes, so reading it there
 * is safe.
 */
public final class CertificateExpiryMeter {
    private static final long CACHE_MILLIS = 10_000;

    private final ChannelRegistry registry;
    private final long warningMillis;
    private boolean computed;
    private long computedAt;
    private long expiring;
    private double soonestSeconds = Double.NaN;

    public CertificateExpiryMeter(ChannelRegistry registry, Duration warning, MeterRegistry meters) {
        this.registry = registry;
        this.warningMillis = warning.toMillis();
        Gauge.builder("mqttgw.device.certificates.expiring", this, m -> m.refresh().expiring)
                .description("Connected devices whose certificate expires within identity.expiry-warning")
                .register(meters);
        Gauge.builder("mqttgw.device.certificate.soonest.expiry", this, m -> m.refresh().soonestSeconds)
                .baseUnit("seconds").description("Time left on the soonest-expiring certificate of a connected device")
                .register(meters);
    }

    synchronized CertificateExpiryMeter refresh() {
        long now = System.currentTimeMillis();
        if (computed && now - computedAt < CACHE_MILLIS) {
            return this;
        }
        long[] counts = {0};
        long[] soonest = {Long.MAX_VALUE};
        registry.forEach(channel -> {
            ConnectionContext context = ConnectionContext.of(channel);
            if (context.hasVerifiedCertificate()) {
                long notAfter = context.certificateNotAfterMillis();
                soonest[0] = Math.min(soonest[0], notAfter);
                if (notAfter - now <= warningMillis) {
                    counts[0]++;
                }
            }
        });
        expiring = counts[0];
        soonestSeconds = soonest[0] == Long.MAX_VALUE ? Double.NaN : (soonest[0] - now) / 1000.0;
        computedAt = now;
        computed = true;
        return this;
    }
}
