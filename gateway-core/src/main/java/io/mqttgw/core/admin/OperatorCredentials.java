package io.mqttgw.core.admin;

import io.mqttgw.core.config.ConfigException;
import io.mqttgw.core.config.CoreConfigKeys;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.tls.TlsFiles;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Who may call the operations endpoints: holders of a token of {@code admin.operations.token-file}, and/or of a
 * client certificate from {@code admin.operations.tls.ca-file} on the operations listener. Every configured
 * credential is required. Built at startup, before any listener, so a bad file stops the node; the token file and the
 * TLS files are re-read when they change (checked at most once a second, on use; a changed file that cannot be used
 * is logged and the previous one kept, as for the device listener's certificates). {@link #authenticate} and
 * {@link #tlsContext} run on the admin thread.
 */
public final class OperatorCredentials {
    private static final String BEARER = "bearer ";

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(OperatorCredentials.class);
    private static final long CHECK_EVERY_NANOS = 1_000_000_000L;

    private final BearerTokens tokens;
    private final GatewayConfig.Operations config;
    private SslContext tls;
    /** The operations listener's server certificate (null for plain HTTP); read by the expiry gauge at scrape time. */
    private volatile X509Certificate serverCertificate;
    private byte[] tlsFilesHash;
    private long tlsCheckedNanos;

    private OperatorCredentials(BearerTokens tokens, GatewayConfig.Operations config) {
        this.tokens = tokens;
        this.config = config;
        if (config.mutualTls()) {
            this.tlsFilesHash = tlsFilesHash(config);
            this.tls = tlsContext(config);
            this.serverCertificate = certificate(config);
            this.tlsCheckedNanos = System.nanoTime();
            String warning = serverCertificateWarning();
            if (warning != null) {
                LOG.warn(warning);
            }
        }
    }

    /** Seconds until the operations listener's server certificate ends (negative once past); NaN without TLS. */
    public double serverCertificateSecondsLeft() {
        X509Certificate c = serverCertificate;
        return c == null ? Double.NaN : (c.getNotAfter().getTime() - System.currentTimeMillis()) / 1000.0;
    }

    /** A warning when the operations listener's server certificate ends within 30 days, else null. */
    public String serverCertificateWarning() {
        X509Certificate c = serverCertificate;
        return c == null ? null : TlsFiles.serverExpiryWarning(CoreConfigKeys.ADMIN_OPERATIONS_TLS_CERT_FILE.name(),
                config.tlsCertFile(), c, System.currentTimeMillis());
    }

    private static X509Certificate certificate(GatewayConfig.Operations config) {
        return TlsFiles.certificates(CoreConfigKeys.ADMIN_OPERATIONS_TLS_CERT_FILE.name(), config.tlsCertFile()).get(0);
    }

    /** The credentials of {@code config}; a {@link ConfigException} naming the key when a file cannot be used. */
    public static OperatorCredentials load(GatewayConfig.Operations config) {
        if (!config.enabled()) {
            throw new IllegalArgumentException("operations are not configured");
        }
        return new OperatorCredentials(config.tokenFile() == null ? null : BearerTokens.load(config.tokenFile()),
                config);
    }

    /**
     * The server context of the operations listener (client certificate required), or null for plain HTTP; built
     * again when one of the three TLS files changed (checked at most once a second), so renewed operator
     * certificates or a new operator CA apply to the next connection without a restart.
     */
    SslContext tlsContext() {
        if (tls == null) {
            return null;
        }
        long now = System.nanoTime();
        if (now - tlsCheckedNanos >= CHECK_EVERY_NANOS) {
            tlsCheckedNanos = now;
            try {
                byte[] hash = tlsFilesHash(config);
                if (!java.util.Arrays.equals(hash, tlsFilesHash)) {
                    tls = tlsContext(config);
                    serverCertificate = certificate(config);
                    tlsFilesHash = hash;
                    LOG.info("operations listener TLS files changed ({}): new connections use them",
                            config.tlsCertFile());
                }
            } catch (ConfigException e) {
                LOG.warn("operations listener TLS files changed but cannot be used, keeping the previous ones: {}",
                        e.getMessage());
            }
        }
        return tls;
    }

    private static byte[] tlsFilesHash(GatewayConfig.Operations config) {
        try {
            java.security.MessageDigest digest = java.security.MessageDigest.getInstance("SHA-256");
            for (java.nio.file.Path file : new java.nio.file.Path[] {config.tlsCertFile(), config.tlsKeyFile(),
                    config.tlsCaFile()}) {
                digest.update(java.nio.file.Files.readAllBytes(file));
            }
            return digest.digest();
        } catch (java.io.IOException | java.security.NoSuchAlgorithmException e) {
            throw new ConfigException("cannot read the operations listener's TLS files ("
                    + CoreConfigKeys.ADMIN_OPERATIONS_TLS_CERT_FILE.name() + ", key-file, ca-file): " + e, e);
        }
    }

    /** The caller's name for the event log, or a refusal. */
    record Verdict(String operator, String refusal) {
        boolean accepted() {
            return operator != null;
        }
    }

    /** Checks the request's bearer token and the connection's client certificate, as far as each is configured. */
    Verdict authenticate(HttpRequest request, SSLSession session) {
        StringBuilder who = new StringBuilder();
        if (config.mutualTls()) {
            String subject = subject(session);
            if (subject == null) {
                return new Verdict(null, "no verified client certificate");
            }
            who.append("cert:").append(subject);
        }
        if (tokens != null) {
            String header = request.headers().get(HttpHeaderNames.AUTHORIZATION);
            if (header == null || header.length() <= BEARER.length()
                    || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
                return new Verdict(null, "missing bearer token");
            }
            String id = tokens.idOf(header.substring(BEARER.length()).strip());
            if (id == null) {
                return new Verdict(null, "invalid bearer token");
            }
            who.insert(0, who.length() == 0 ? "token:" + id : "token:" + id + " ");
        }
        return new Verdict(who.toString(), null);
    }

    boolean usesTokens() {
        return tokens != null;
    }

    private static String subject(SSLSession session) {
        if (session == null) {
            return null;
        }
        try {
            Certificate[] chain = session.getPeerCertificates();
            return chain.length > 0 && chain[0] instanceof X509Certificate x
                    ? x.getSubjectX500Principal().getName() : null;
        } catch (SSLPeerUnverifiedException e) {
            return null;
        }
    }

    private static SslContext tlsContext(GatewayConfig.Operations config) {
        try {
            // read by the one PEM reader (BouncyCastle, TlsFiles), as the device listener's files are
            X509Certificate[] chain = TlsFiles.certificates(CoreConfigKeys.ADMIN_OPERATIONS_TLS_CERT_FILE.name(),
                    config.tlsCertFile()).toArray(new X509Certificate[0]);
            // operator tools would refuse it: say so now, not at the first call in an incident
            TlsFiles.checkServerValidity(CoreConfigKeys.ADMIN_OPERATIONS_TLS_CERT_FILE.name(), config.tlsCertFile(),
                    chain[0], System.currentTimeMillis());
            java.security.PrivateKey key = TlsFiles.privateKey(CoreConfigKeys.ADMIN_OPERATIONS_TLS_KEY_FILE.name(),
                    config.tlsKeyFile());
            X509Certificate[] cas = TlsFiles.certificates(CoreConfigKeys.ADMIN_OPERATIONS_TLS_CA_FILE.name(),
                    config.tlsCaFile()).toArray(new X509Certificate[0]);
            return SslContextBuilder.forServer(key, chain)
                    .sslProvider(OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK)
                    .protocols("TLSv1.3", "TLSv1.2")
                    .trustManager(cas)
                    .clientAuth(ClientAuth.REQUIRE)
                    .build();
        } catch (Exception e) {
            throw new ConfigException("cannot build the operations listener's TLS context from "
                    + CoreConfigKeys.ADMIN_OPERATIONS_TLS_CERT_FILE.name() + "=" + config.tlsCertFile() + ", "
                    + CoreConfigKeys.ADMIN_OPERATIONS_TLS_KEY_FILE.name() + "=" + config.tlsKeyFile() + ", "
                    + CoreConfigKeys.ADMIN_OPERATIONS_TLS_CA_FILE.name() + "=" + config.tlsCaFile() + ": "
                    + e.getMessage() + " (PEM certificate chain, unencrypted PKCS#8 key, PEM CA bundle)", e);
        }
    }
}
