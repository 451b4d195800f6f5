package io.mqttgw.bench.sim.pki;

import io.mqttgw.core.tls.TlsFiles;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslContextOption;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.ReferenceCountUtil;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import javax.net.ssl.SSLException;

/**
 * The one client TLS context of a worker: OpenSSL (BoringSSL) engine, TLS 1.3 and 1.2, trusting the CA of the
 * gateway's server certificate, presenting each device's certificate through {@link DeviceKeyManager}.
 *
 * <p>Every handler is created with the device's client id as peer host and the gateway's port, because the client
 * session cache is keyed by host and port: one entry per device, so a reconnecting device resumes its own session
 * (with its own identity), never another device's. Since the peer host is then not the gateway's name, host name
 * verification is off; the server's chain is still verified against the CA. SNI carries the client id. The cache
 * holds {@code sessionCacheSize} sessions; with resumption off it is disabled. The devices offer {@code groups} for
 * the key exchange, in that order (the JDK engine, without OpenSSL, uses the JDK's). The OpenSSL engines are Netty's
 * reference-counted ones, released by their {@code SslHandler} when the connection closes: the plain ones register a
 * finalizer each, so the native state of every closed connection waited for a garbage collection and the finalizer
 * thread (the gateway made the same choice). {@link #close} gives up the context once the devices
 * are gone. Thread-safe (netty contexts are).
 */
public final class ClientTls implements AutoCloseable {
    private final SslContext context;
    private final int port;

    private ClientTls(SslContext context, int port) {
        this.context = context;
        this.port = port;
    }

    public static ClientTls create(Path serverCa, Function<String, DeviceCredential> credentials,
                                   Consumer<String> certificateRequested, int port, boolean resume,
                                   List<String> groups, int sessionCacheSize) throws SSLException {
        List<X509Certificate> cas;
        try {
            cas = TlsFiles.certificates("--server-ca", serverCa);
        } catch (IllegalStateException e) {
            throw new SSLException(e.getMessage(), e);
        }
        boolean openSsl = OpenSsl.isAvailable();
        SslContextBuilder builder = SslContextBuilder.forClient()
                .sslProvider(openSsl ? SslProvider.OPENSSL_REFCNT : SslProvider.JDK)
                .protocols("TLSv1.3", "TLSv1.2")
                .keyManager(new DeviceKeyManager(credentials, certificateRequested))
                .trustManager(cas)
                .endpointIdentificationAlgorithm(null)
                .sessionCacheSize(sessionCacheSize)
                .sessionTimeout(3600);
        if (openSsl) {
            builder.option(OpenSslContextOption.GROUPS, groups.toArray(String[]::new));
        }
        SslContext context = builder.build();
        if (!resume && context.sessionContext() instanceof OpenSslSessionContext sessions) {
            sessions.setSessionCacheEnabled(false);
        }
        return new ClientTls(context, port);
    }

    /** Gives up the context (native with OpenSSL); engines still open keep it until they close. */
    @Override
    public void close() {
        ReferenceCountUtil.release(context);
    }

    /** A handler for {@code clientId}'s connection; offers the device's cached session when resumption is on. */
    public SslHandler newHandler(ByteBufAllocator alloc, String clientId) {
        return context.newHandler(alloc, clientId, port);
    }
}
