package io.mqttgw.core.tls;

import io.micrometer.core.instrument.Counter;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.metrics.GatewayMetrics;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
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
 * content changes. Event loops
 * read {@link #current()} (a volatile read) for each new connection; a reload builds the new context on the
 * watcher thread, so new handshakes use the new files and open connections keep theirs. A reload that fails
 * (half-written files, a key that does not match) keeps the previous context and is counted and logged.
 */
public final class SslContextStore {
    private static final Logger LOG = LoggerFactory.getLogger(SslContextStore.class);

    private final GatewayConfig.TlsListener config;
    private final SslProvider provider;
    private final Counter reloads;
    private final Counter reloadFailures;
    private volatile SslContext current;
    private byte[] checksum;
    private ScheduledFuture<?> watch;

    public SslContextStore(GatewayConfig.TlsListener config, GatewayMetrics metrics) {
        this.config = config;
        this.provider = chooseProvider(config.engine());
        this.reloads = Counter.builder("mqttgw.tls.reloads").tag("result", "ok")
                .description("Certificate file reloads").register(metrics.registry());
        this.reloadFailures = Counter.builder("mqttgw.tls.reloads").tag("result", "failed")
                .description("Certificate file reloads").register(metrics.registry());
        this.checksum = checksumOfFiles();
        this.current = build();
        LOG.info("TLS listener context built: engine {}, protocols {}, client auth {}", provider, config.protocols(),
                config.clientAuth());
    }

    private static SslProvider chooseProvider(String engine) {
        if ("openssl".equals(engine)) {
            if (OpenSsl.isAvailable()) {
                return SslProvider.OPENSSL;
            }
            LOG.warn("OpenSSL engine unavailable ({}); falling back to the JDK engine", OpenSsl.unavailabilityCause()
                    .toString());
        }
        return SslProvider.JDK;
    }

    /** The context for new connections. */
    public SslContext current() {
        return current;
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

    /** Rebuilds the context when any file's content changed; returns whether a new context is in place. */
    public boolean reloadIfChanged() {
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
            current = build();
            checksum = now;
            reloads.increment();
            LOG.info("TLS certificate files changed; new handshakes use the new context");
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
        try {
            SslContextBuilder builder = SslContextBuilder.forServer(config.certFile().toFile(),
                            config.keyFile().toFile())
                    .sslProvider(provider)
                    .protocols(config.protocols())
                    .clientAuth(clientAuth(config.clientAuth()))
                    .sessionCacheSize(config.sessionCacheSize())
                    .sessionTimeout(config.sessionTimeout().toSeconds());
            if (config.caFile() != null && config.crlFile() != null) {
                builder.trustManager(RevocationTrust.of(config.caFile(), config.crlFile()));
            } else if (config.caFile() != null) {
                builder.trustManager(config.caFile().toFile());
            }
            return builder.build();
        } catch (SSLException | IllegalArgumentException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot build the TLS context from listener.tls.cert-file="
                    + config.certFile() + ", listener.tls.key-file=" + config.keyFile() + ", listener.tls.ca-file="
                    + config.caFile() + (config.crlFile() == null ? "" : ", listener.tls.crl-file=" + config.crlFile())
                    + ": " + e.getMessage() + " (PEM certificate chain, unencrypted PKCS#8 key, PEM or DER CRLs)", e);
        }
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
