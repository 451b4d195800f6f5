package io.mqttgw.core.tls;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.metrics.HealthCheck;
import io.mqttgw.core.spi.HealthStatus;
import java.security.cert.X509Certificate;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import io.mqttgw.core.identity.CertificateAuthority;
import java.util.function.Consumer;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.OpenSslSessionTicketKey;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS listener's server context, built from PEM files (and CRLs, when configured) and replaced when their
 * content changes. Device certificates are checked by a {@link DeviceTrustManager} with the verifier of
 * {@code listener.tls.verifier}; CRL ages are gauges, and a CRL past its next-update is logged and reported by
 * {@link #crlHealth()}. Event loops
 * read {@link #current()} (a volatile read) for each new connection; a reload builds the new context on the
 * watcher thread, so new handshakes use the new files and open connections keep theirs. A reload that fails
 * (half-written files, a key that does not match) keeps the previous context and is counted and logged.
 */
public final class SslContextStore {
    private static final Logger LOG = LoggerFactory.getLogger(SslContextStore.class);

    private final GatewayConfig.TlsListener config;
    private final CertificateIdentities identities;
    private final SslProvider provider;
    private final Counter reloads;
    private final Counter reloadFailures;
    /** Verified device certificates remembered per context (lean verifier), bounding the cache's heap. */
    static final int VERIFIED_CACHE_CAPACITY = 100_000;

    private final MeterRegistry meters;
    private final Set<CertificateAuthority> crlIssuersMetered = ConcurrentHashMap.newKeySet();
    private volatile RevocationLists crls = RevocationLists.NONE;
    /** The verifier of {@link #current}; null without a CA file. */
    private volatile DeviceCertificateVerifier verifier;
    private volatile List<CertificateAuthority> caNames = List.of();
    /** Told the new CRLs after each reload that put a new context in place; null until the gateway sets it. */
    private volatile Consumer<RevocationLists> revocationListener;
    private List<String> lastStale = List.of();
    private volatile SslContext current;
    /** Session-ticket keys, current first; null while the engine's own are used. Guarded by {@code this}. */
    private OpenSslSessionTicketKey[] ticketKeys;
    private byte[] checksum;
    private ScheduledFuture<?> watch;
    /** The server certificate of {@link #current}, for its expiry gauge and warnings. */
    private volatile X509Certificate serverCertificate;
    /** What was last logged about the server certificate's dates: ok, expiring or expired. Guarded by {@code this}. */
    private String lastExpiryState = "ok";

    /** @param identities how device certificates name their device ({@code identity.source}) */
    public SslContextStore(GatewayConfig.TlsListener config, CertificateIdentities identities, GatewayMetrics metrics) {
        this.config = config;
        this.identities = identities;
        this.provider = chooseProvider(config.engine());
        this.meters = metrics.registry();
        this.reloads = Counter.builder("mqttgw.tls.reloads").tag("result", "ok")
                .description("Certificate file reloads").register(metrics.registry());
        this.reloadFailures = Counter.builder("mqttgw.tls.reloads").tag("result", "failed")
                .description("Certificate file reloads").register(metrics.registry());
        // build first: it names the key and the path of a file it cannot read
        this.current = build();
        this.checksum = checksumOfFiles();
        LOG.info("TLS listener context built: engine {}, protocols {}, groups {}, client auth {}, verifier {}, "
                        + "crl-mode {}, CA names {}", provider, config.protocols(),
                provider == SslProvider.JDK ? "of jdk.tls.namedGroups" : config.groups(), config.clientAuth(),
                config.verifier(),
                config.crlMode(), config.sendCaNames() ? "listed" : "not listed");
        checkCrlFreshness();
        Gauge.builder("mqttgw.tls.server.certificate.expiry", this, s -> (s.serverCertificate.getNotAfter().getTime()
                        - System.currentTimeMillis()) / 1000.0)
                .tag("listener", "tls").baseUnit("seconds")
                .description("Time until the notAfter of the listener's server certificate; negative once past")
                .register(meters);
        checkServerExpiry();
    }

    /**
     * A warning when the server certificate in use ends within {@link TlsFiles#SERVER_EXPIRY_WARNING}, else null:
     * {@code check-config} prints it, the store logs it.
     */
    public String serverCertificateWarning() {
        return TlsFiles.serverExpiryWarning("listener.tls.cert-file", config.certFile(), serverCertificate,
                System.currentTimeMillis());
    }

    /**
     * Logs once when the server certificate in use enters the warning window or expires (and when a renewed one is
     * in place); called at build and by the file watcher, so the log says it before devices start failing.
     */
    synchronized void checkServerExpiry() {
        X509Certificate certificate = serverCertificate;
        long now = System.currentTimeMillis();
        String warning = serverCertificateWarning();
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

    private static SslProvider chooseProvider(String engine) {
        if ("openssl".equals(engine)) {
            if (OpenSsl.isAvailable()) {
                // the reference-counted engine: the plain one registers a finalizer per connection (a Finalizer object
                // for each idle device, and every closed engine waits for the finalizer thread before its memory goes)
                return SslProvider.OPENSSL_REFCNT;
            }
            LOG.warn("OpenSSL engine unavailable ({}); falling back to the JDK engine", OpenSsl.unavailabilityCause()
                    .toString());
        }
        return SslProvider.JDK;
    }

    /**
     * Sets who is told the CRLs of each reload that puts a new context in place (the sweep of connections they
     * revoke). Called once, by the gateway, before {@link #watch}; runs on the reloading thread and must not block.
     */
    public void onRevocationReload(Consumer<RevocationLists> listener) {
        this.revocationListener = listener;
    }

    /** The context for new connections. */
    public SslContext current() {
        return current;
    }

    /**
     * The verifier of the context new connections get now, or null without {@code listener.tls.ca-file}: a resumed
     * session is verified again with it ({@link TlsHandshakeHandler}).
     */
    public DeviceCertificateVerifier verifier() {
        return verifier;
    }

    public SslProvider provider() {
        return provider;
    }

    /** Checks the files every {@code listener.tls.reload-interval} on {@code scheduler}; no-op when it is zero. */
    public void watch(ScheduledExecutorService scheduler) {
        long ms = config.reloadInterval().toMillis();
        if (ms > 0) {
            watch = scheduler.scheduleWithFixedDelay(this::reloadIfChanged, ms, ms, TimeUnit.MILLISECONDS);
        }
    }

    public void stopWatching() {
        if (watch != null) {
            watch.cancel(false);
        }
    }

    /**
     * Stops watching and gives up the store's reference to the current context (with the OpenSSL engine a native
     * object); engines still open keep it until they close. Called once, when no connection is accepted any more.
     */
    public synchronized void close() {
        stopWatching();
        ReferenceCountUtil.release(current);
    }

    /** Rebuilds the context when any file's content changed; returns whether a new context is in place. */
    public boolean reloadIfChanged() {
        try {
            return reloadIfFilesChanged();
        } finally {
            checkCrlFreshness();
            checkServerExpiry();
        }
    }

    private boolean reloadIfFilesChanged() {
        byte[] now;
        try {
            now = checksumOfFiles();
        } catch (RuntimeException e) {
            reloadFailures.increment();
            LOG.warn("TLS files unreadable, keeping the current context: {}", e.getMessage());
            return false;
        }
        if (Arrays.equals(now, checksum)) {
            return false;
        }
        try {
            SslContext rebuilt = build();
            synchronized (this) {
                // a new context starts with the engine's own ticket keys: give it the rotated ones first
                applyTicketKeys(rebuilt, ticketKeys);
                SslContext previous = current;
                current = rebuilt;
                // open connections' engines hold their own reference: the old context lives until the last one closes
                ReferenceCountUtil.release(previous);
            }
            checksum = now;
            reloads.increment();
            LOG.info("TLS certificate files changed; new handshakes use the new context");
            Consumer<RevocationLists> listener = revocationListener;
            if (listener != null && !crls.isEmpty()) {
                listener.accept(crls);
            }
            return true;
        } catch (RuntimeException e) {
            reloadFailures.increment();
            LOG.warn("TLS files changed but do not make a valid context, keeping the current one: {}", e.getMessage());
            // remember the bad content so the same broken files are not retried every interval
            checksum = now;
            return false;
        }
    }

    private SslContext build() {
        TlsFiles.ServerCredentials server = TlsFiles.server(config.certFile(), config.keyFile());
        TlsFiles.checkServerValidity("listener.tls.cert-file", config.certFile(), server.chain()[0],
                System.currentTimeMillis());
        try {
            SslContextBuilder builder = SslContextBuilder.forServer(server.key(), server.chain())
                    .sslProvider(provider)
                    .protocols(config.protocols())
                    .clientAuth(clientAuth(config.clientAuth()))
                    .sessionCacheSize(config.sessionCacheSize())
                    .sessionTimeout(config.sessionTimeout().toSeconds());
            if (provider != SslProvider.JDK) {
                builder.option(OpenSslContextOption.GROUPS, config.groups().toArray(String[]::new));
            }
            RevocationLists lists = RevocationLists.NONE;
            DeviceCertificateVerifier verifier = null;
            List<X509Certificate> cas = List.of();
            if (config.caFile() != null) {
                cas = TlsFiles.certificates("listener.tls.ca-file", config.caFile());
                ConfiguredCas.require(cas, "listener.tls.ca-file=" + config.caFile());
                if (config.crlFile() != null) {
                    lists = RevocationLists.of(TlsFiles.crls("listener.tls.crl-file", config.crlFile()), cas,
                            "listener.tls.crl-file=" + config.crlFile());
                }
                verifier = "pkix".equals(config.verifier())
                        ? DeviceCertificateVerifier.pkix(cas, lists, config.crlHard())
                        : DeviceCertificateVerifier.lean(cas, lists, config.crlHard(), VERIFIED_CACHE_CAPACITY,
                                this.verifier);
                X509Certificate[] listed = config.sendCaNames() ? cas.toArray(new X509Certificate[0])
                        : new X509Certificate[0];
                builder.trustManager(new DeviceTrustManager(verifier, identities, listed, System::currentTimeMillis));
            }
            SslContext context = builder.build();
            serverCertificate = server.chain()[0];
            crls = lists;
            this.verifier = verifier;
            caNames = cas.stream().map(CertificateAuthority::of).distinct().toList();
            registerCrlMeters(lists);
            return context;
        } catch (SSLException | IllegalArgumentException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot build the TLS context from listener.tls.cert-file="
                    + config.certFile() + ", listener.tls.key-file=" + config.keyFile() + ", listener.tls.ca-file="
                    + config.caFile() + (config.crlFile() == null ? "" : ", listener.tls.crl-file=" + config.crlFile())
                    + ": " + e.getMessage(), e);
        }
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

    /**
     * Sets the session-ticket keys (48 bytes each: name, HMAC key, AES key; the first encrypts, all decrypt) on the
     * current context and on every context a reload builds. Called by the ticket-key rotation on the housekeeping
     * thread; takes the engine's context write lock briefly. The JDK engine has no ticket-key control: ignored there.
     */
    public synchronized void ticketKeys(List<byte[]> keys) {
        OpenSslSessionTicketKey[] converted = new OpenSslSessionTicketKey[keys.size()];
        for (int i = 0; i < converted.length; i++) {
            byte[] k = keys.get(i);
            converted[i] = new OpenSslSessionTicketKey(Arrays.copyOfRange(k, 0, 16), Arrays.copyOfRange(k, 16, 32),
                    Arrays.copyOfRange(k, 32, 48));
        }
        ticketKeys = converted;
        applyTicketKeys(current, converted);
    }

    /** Whether this engine takes ticket keys from the gateway (OpenSSL); the JDK engine keeps its own. */
    public boolean supportsTicketKeys() {
        return current.sessionContext() instanceof OpenSslSessionContext;
    }

    private static void applyTicketKeys(SslContext context, OpenSslSessionTicketKey[] keys) {
        if (keys != null && keys.length > 0 && context.sessionContext() instanceof OpenSslSessionContext session) {
            // also turns tickets on for TLS 1.2 (Netty starts a context with SSL_OP_NO_TICKET)
            session.setTicketKeys(keys);
        }
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
    public HealthCheck crlHealth() {
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

    private static ClientAuth clientAuth(String value) {
        return switch (value) {
            case "require" -> ClientAuth.REQUIRE;
            case "optional" -> ClientAuth.OPTIONAL;
            default -> ClientAuth.NONE;
        };
    }

    private byte[] checksumOfFiles() {
        List<Path> files = new ArrayList<>(List.of(config.certFile(), config.keyFile()));
        if (config.caFile() != null) {
            files.add(config.caFile());
        }
        if (config.crlFile() != null) {
            files.add(config.crlFile());
        }
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (Path f : files) {
                digest.update(Files.readAllBytes(f));
            }
            return digest.digest();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + e.getMessage(), e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
