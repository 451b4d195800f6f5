package io.mqttgw.core.tls;

import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.identity.CertificateAuthority;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the TLS listener's server context from its files ({@code listener.tls.cert-file}, {@code key-file},
 * {@code ca-file}, {@code crl-file}) with the device verifier of {@code listener.tls.verifier}, and sums the files'
 * content so that {@link SslContextStore} rebuilds only when it changed. Immutable; called by the thread that
 * builds (start-up, then the file watcher), never by an event loop: it reads files.
 */
final class ListenerContextFactory {
    /** The store's logger: these lines have always been the TLS listener's. */
    private static final Logger LOG = LoggerFactory.getLogger(SslContextStore.class);
    /** Verified device certificates remembered per context (lean verifier), bounding the cache's heap. */
    static final int VERIFIED_CACHE_CAPACITY = 100_000;

    /** A context just built, and what it was built with that the store hands on. */
    record Built(SslContext context, X509Certificate serverCertificate, RevocationLists crls,
                 DeviceCertificateVerifier verifier, List<CertificateAuthority> caNames) {
    }

    private final GatewayConfig.TlsListener config;
    private final CertificateIdentities identities;
    private final SslProvider provider;

    ListenerContextFactory(GatewayConfig.TlsListener config, CertificateIdentities identities) {
        this.config = config;
        this.identities = identities;
        this.provider = chooseProvider(config.engine());
    }

    SslProvider provider() {
        return provider;
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
     * A new context from the files as they are now.
     *
     * @param previous the verifier of the context in place (null at start-up or without a CA file): a lean verifier
     *                 of the same CAs hands its cache of verified devices on
     */
    Built build(DeviceCertificateVerifier previous) {
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
                                previous);
                X509Certificate[] listed = config.sendCaNames() ? cas.toArray(new X509Certificate[0])
                        : new X509Certificate[0];
                builder.trustManager(new DeviceTrustManager(verifier, identities, listed, System::currentTimeMillis));
            }
            SslContext context = builder.build();
            return new Built(context, server.chain()[0], lists, verifier,
                    cas.stream().map(CertificateAuthority::of).distinct().toList());
        } catch (SSLException | IllegalArgumentException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot build the TLS context from listener.tls.cert-file="
                    + config.certFile() + ", listener.tls.key-file=" + config.keyFile() + ", listener.tls.ca-file="
                    + config.caFile() + (config.crlFile() == null ? "" : ", listener.tls.crl-file=" + config.crlFile())
                    + ": " + e.getMessage(), e);
        }
    }

    private static ClientAuth clientAuth(String value) {
        return switch (value) {
            case "require" -> ClientAuth.REQUIRE;
            case "optional" -> ClientAuth.OPTIONAL;
            default -> ClientAuth.NONE;
        };
    }

    byte[] checksumOfFiles() {
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
