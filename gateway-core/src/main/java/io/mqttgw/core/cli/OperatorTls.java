package io.mqttgw.core.cli;

import io.mqttgw.core.tls.TlsFiles;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * The TLS context of the CLI's HTTPS calls: the operator's certificate and key (for an operations listener with
 * mutual TLS) and the CAs it trusts for the node's certificate; the JDK's defaults for what is not given. The files
 * are read with the gateway's own PEM reader, so the CLI takes the same PEM forms as the server.
 */
final class OperatorTls {
    private static final char[] IN_MEMORY = new char[0];

    private OperatorTls() {
    }

    static SSLContext context(Path certFile, Path keyFile, Path caFile) {
        if ((certFile == null) != (keyFile == null)) {
            throw new ClientsCommand.Failure(ClientsCommand.USAGE, "--cert and --key go together: give both");
        }
        try {
            KeyManager[] keys = null;
            if (certFile != null) {
                List<X509Certificate> chain = TlsFiles.certificates("--cert", certFile);
                PrivateKey key = TlsFiles.privateKey("--key", keyFile);
                KeyStore store = KeyStore.getInstance("PKCS12");
                store.load(null, null);
                store.setKeyEntry("operator", key, IN_MEMORY, chain.toArray(new X509Certificate[0]));
                KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(store, IN_MEMORY);
                keys = kmf.getKeyManagers();
            }
            TrustManager[] trust = null;
            if (caFile != null) {
                KeyStore store = KeyStore.getInstance("PKCS12");
                store.load(null, null);
                int i = 0;
                for (X509Certificate ca : TlsFiles.certificates("--ca-file", caFile)) {
                    store.setCertificateEntry("ca-" + i++, ca);
                }
                TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(store);
                trust = tmf.getTrustManagers();
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys, trust, null);
            return context;
        } catch (IllegalStateException e) {
            // TlsFiles names the option, the path and the reason
            throw new ClientsCommand.Failure(ClientsCommand.USAGE, e.getMessage());
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new ClientsCommand.Failure(ClientsCommand.USAGE, "cannot use --cert/--key/--ca-file: " + e);
        }
    }
}
