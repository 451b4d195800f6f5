package io.mqttgw.core.tls;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.identity.CertificateAuthority;
import io.mqttgw.core.metrics.HealthCheck;
import io.mqttgw.core.spi.HealthStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS listener's CRLs as operators see them: one age and one next-update gauge per CA with a CRL, a log line when
 * a CRL turns stale (and again when it is fresh), and the {@code tls-crl} health check. Told the lists of each context
 * {@link SslContextStore} builds ({@link #use}, on the building thread); the gauges and the health check read them
 * from any thread; {@link #check} is called by the building thread and the file watcher.
 */
final class CrlFreshness {
    /** The store's logger: these lines have always been the TLS listener's. */
    private static final Logger LOG = LoggerFactory.getLogger(SslContextStore.class);

    private final GatewayConfig.TlsListener config;
    private final MeterRegistry meters;
    private final Set<CertificateAuthority> crlIssuersMetered = ConcurrentHashMap.newKeySet();
    private volatile RevocationLists crls = RevocationLists.NONE;
    private volatile List<CertificateAuthority> caNames = List.of();
    /** Guarded by {@code this}. */
    private List<String> lastStale = List.of();

    CrlFreshness(GatewayConfig.TlsListener config, MeterRegistry meters) {
        this.config = config;
        this.meters = meters;
    }

    /** The lists of the context in place. */
    RevocationLists lists() {
        return crls;
    }

    /** Takes the lists and the CAs of a context just built, and meters the CAs new among them. */
    void use(RevocationLists lists, List<CertificateAuthority> cas) {
        crls = lists;
        caNames = cas;
        registerCrlMeters(lists);
    }

    /**
     * One age and one next-update gauge per CA with a CRL, reading the current lists (NaN once a CA is gone). The
     * {@code key} tag tells apart the CAs of one name during a rotation.
     */
    private void registerCrlMeters(RevocationLists lists) {
        for (RevocationLists.IssuerCrl crl : lists.all()) {
            CertificateAuthority issuer = crl.issuer();
            if (crlIssuersMetered.add(issuer)) {
                String name = issuer.subject().getName();
                String key = issuer.keyId();
                Gauge.builder("mqttgw.tls.crl.age", this, s -> s.crlSeconds(issuer, true))
                        .tag("issuer", name).tag("key", key).baseUnit("seconds")
                        .description("Time since the thisUpdate of the issuer's CRL in listener.tls.crl-file")
                        .register(meters);
                Gauge.builder("mqttgw.tls.crl.next.update", this, s -> s.crlSeconds(issuer, false))
                        .tag("issuer", name).tag("key", key).baseUnit("seconds")
                        .description("Time until the nextUpdate of the issuer's CRL; negative once it is past")
                        .register(meters);
            }
        }
    }

    private double crlSeconds(CertificateAuthority issuer, boolean age) {
        RevocationLists.IssuerCrl crl = crls.of(issuer);
        if (crl == null) {
            return Double.NaN;
        }
        long now = System.currentTimeMillis();
        if (age) {
            return (now - crl.thisUpdateMillis()) / 1000.0;
        }
        return crl.nextUpdateMillis() == Long.MAX_VALUE ? Double.POSITIVE_INFINITY
                : (crl.nextUpdateMillis() - now) / 1000.0;
    }

    /** Names of the device CAs whose CRL is missing (hard mode only) or past its next-update. */
    private List<String> staleCrlIssuers(long now) {
        List<String> stale = new ArrayList<>();
        if (config.crlFile() == null) {
            return stale;
        }
        for (RevocationLists.IssuerCrl crl : crls.all()) {
            if (crl.staleAt(now)) {
                stale.add(crl.issuer().toString());
            }
        }
        if (config.crlHard()) {
            for (CertificateAuthority ca : caNames()) {
                if (crls.of(ca) == null) {
                    stale.add(ca + " (no CRL)");
                }
            }
        }
        return stale;
    }

    private List<CertificateAuthority> caNames() {
        return caNames;
    }

    /**
     * Logs once when a CRL turns stale (and again when it is fresh); called by the file watcher and at build, so an
     * operator sees it without scraping metrics.
     */
    synchronized void checkCrlFreshness() {
        List<String> stale = config.crlFile() == null ? List.of() : staleCrlIssuers(System.currentTimeMillis());
        if (!stale.equals(lastStale)) {
            if (stale.isEmpty()) {
                LOG.info("every device CA has a current CRL again");
            } else if (config.crlHard()) {
                LOG.warn("no current CRL for {}: listener.tls.crl-mode is hard, so their devices are refused "
                        + "(reason crl_stale) until listener.tls.crl-file is renewed", stale);
            } else {
                LOG.warn("no current CRL for {}: listener.tls.crl-mode is soft, so their devices are still admitted"
                        + " and revocations after the CRL's date are not seen", stale);
            }
            lastStale = stale;
        }
    }

    /** {@code tls-crl} for {@code /health}: degraded while hard CRL mode refuses devices of an issuer. */
    HealthCheck crlHealth() {
        return new HealthCheck("tls-crl", () -> {
            List<String> stale = staleCrlIssuers(System.currentTimeMillis());
            if (stale.isEmpty()) {
                return HealthStatus.UP;
            }
            if (config.crlHard()) {
                return HealthStatus.degraded("no current CRL for " + stale + "; their devices are refused "
                        + "(listener.tls.crl-mode hard)");
            }
            return new HealthStatus(true, "no current CRL for " + stale + " (listener.tls.crl-mode soft: devices "
                    + "admitted)");
        });
    }
}
