package io.mqttgw.core.tls;

import io.micrometer.core.instrument.Counter;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.metrics.HealthCheck;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.OpenSslSessionTicketKey;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.ReferenceCountUtil;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS listener's server context, built from PEM files (and CRLs, when configured) by a
 * {@link ListenerContextFactory} and replaced when their content changes. Device certificates are checked by a
 * {@link DeviceTrustManager} with the verifier of {@code listener.tls.verifier}; CRL ages are gauges, and a CRL past
 * its next-update is logged and reported by {@link #crlHealth()} ({@link CrlFreshness}); the server certificate's
 * dates likewise ({@link ServerCertificateExpiry}). Event loops read {@link #current()} (a volatile read) for each
 * new connection; a reload builds the new context on the watcher thread, so new handshakes use the new files and
 * open connections keep theirs. A reload that fails (half-written files, a key that does not match) keeps the
 * previous context and is counted and logged. Session-ticket keys set by the rotation (housekeeping thread) are
 * given to the current context and to every context a reload builds.
 */
public final class SslContextStore {
    private static final Logger LOG = LoggerFactory.getLogger(SslContextStore.class);

    private final GatewayConfig.TlsListener config;
    private final ListenerContextFactory contexts;
    private final CrlFreshness crls;
    private final ServerCertificateExpiry serverExpiry;
    private final Counter reloads;
    private final Counter reloadFailures;
    /** The verifier of {@link #current}; null without a CA file. */
    private volatile DeviceCertificateVerifier verifier;
    /** Told the new CRLs after each reload that put a new context in place; null until the gateway sets it. */
    private volatile Consumer<RevocationLists> revocationListener;
    private volatile SslContext current;
    /** Session-ticket keys, current first; null while the engine's own are used. Guarded by {@code this}. */
    private OpenSslSessionTicketKey[] ticketKeys;
    private byte[] checksum;
    private ScheduledFuture<?> watch;

    /** @param identities how device certificates name their device ({@code identity.source}) */
    public SslContextStore(GatewayConfig.TlsListener config, CertificateIdentities identities, GatewayMetrics metrics) {
        this.config = config;
        this.contexts = new ListenerContextFactory(config, identities);
        this.crls = new CrlFreshness(config, metrics.registry());
        this.serverExpiry = new ServerCertificateExpiry(config);
        this.reloads = Counter.builder("mqttgw.tls.reloads").tag("result", "ok")
                .description("Certificate file reloads").register(metrics.registry());
        this.reloadFailures = Counter.builder("mqttgw.tls.reloads").tag("result", "failed")
                .description("Certificate file reloads").register(metrics.registry());
        // build first: it names the key and the path of a file it cannot read
        this.current = build();
        this.checksum = contexts.checksumOfFiles();
        SslProvider provider = contexts.provider();
        LOG.info("TLS listener context built: engine {}, protocols {}, groups {}, client auth {}, verifier {}, "
                        + "crl-mode {}, CA names {}", provider, config.protocols(),
                provider == SslProvider.JDK ? "of jdk.tls.namedGroups" : config.groups(), config.clientAuth(),
                config.verifier(),
                config.crlMode(), config.sendCaNames() ? "listed" : "not listed");
        crls.checkCrlFreshness();
        serverExpiry.register(metrics.registry());
        serverExpiry.check();
    }

    /**
     * A warning when the server certificate in use ends within {@link TlsFiles#SERVER_EXPIRY_WARNING}, else null:
     * {@code check-config} prints it, the store logs it.
     */
    public String serverCertificateWarning() {
        return serverExpiry.warning();
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
        return contexts.provider();
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
            crls.checkCrlFreshness();
            serverExpiry.check();
        }
    }

    private boolean reloadIfFilesChanged() {
        byte[] now;
        try {
            now = contexts.checksumOfFiles();
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
            RevocationLists lists = crls.lists();
            if (listener != null && !lists.isEmpty()) {
                listener.accept(lists);
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

    /** Builds a context from the files and hands what it was built with to those who watch it. */
    private SslContext build() {
        ListenerContextFactory.Built built = contexts.build(verifier);
        serverExpiry.use(built.serverCertificate());
        verifier = built.verifier();
        crls.use(built.crls(), built.caNames());
        return built.context();
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

    /** {@code tls-crl} for {@code /health}: degraded while hard CRL mode refuses devices of an issuer. */
    public HealthCheck crlHealth() {
        return crls.crlHealth();
    }
}
