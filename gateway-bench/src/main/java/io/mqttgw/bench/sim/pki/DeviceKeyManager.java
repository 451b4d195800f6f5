package io.mqttgw.bench.sim.pki;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.function.Function;
import java.util.function.Consumer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * Presents each device's own certificate from one shared client context. The engine's peer host is the device's
 * client id (see {@link ClientTls}), so the alias is the client id and the credential is looked up, and parsed from
 * DER, only when the server asks for a certificate. A resumed handshake does not ask, which is how the client tells
 * full from resumed handshakes: {@code certificateRequested} is told each time. Called on the event loop that runs
 * the handshake (or netty's task executor); stateless apart from the lookups, so thread-safe.
 */
final class DeviceKeyManager extends X509ExtendedKeyManager {
    private final Function<String, DeviceCredential> credentials;
    private final Consumer<String> certificateRequested;

    DeviceKeyManager(Function<String, DeviceCredential> credentials, Consumer<String> certificateRequested) {
        this.credentials = credentials;
        this.certificateRequested = certificateRequested;
    }

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
        String clientId = engine.getPeerHost();
        if (clientId == null || credentials.apply(clientId) == null) {
            return null;
        }
        certificateRequested.accept(clientId);
        return clientId;
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        DeviceCredential c = credentials.apply(alias);
        return c == null ? null : new X509Certificate[] {c.certificate()};
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        DeviceCredential c = credentials.apply(alias);
        return c == null ? null : c.privateKey();
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return null;
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        return null;
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        return null;
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return null;
    }
}
