package io.mqttgw.core.tls;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The TLS listener's trust in device certificates: hands the chain to the configured {@link DeviceCertificateVerifier},
 * then refuses a trusted certificate that does not name its device exactly ({@link CertificateIdentities}), so the
 * device gets an alert; and names the CAs the server lists in its CertificateRequest
 * ({@code listener.tls.send-ca-names}; both engines build that list from {@link #getAcceptedIssuers()}, so an empty
 * array sends none). Server-side only. Immutable; called
 * concurrently by all event loops.
 */
final class DeviceTrustManager extends X509ExtendedTrustManager {
    private final DeviceCertificateVerifier verifier;
    private final CertificateIdentities identities;
    private final X509Certificate[] listedIssuers;
    private final LongSupplier clock;

    DeviceTrustManager(DeviceCertificateVerifier verifier, CertificateIdentities identities,
                       X509Certificate[] listedIssuers, LongSupplier clock) {
        this.verifier = verifier;
        this.identities = identities;
        this.listedIssuers = listedIssuers.clone();
        this.clock = clock;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        Checked checked = verify(chain);
        VerifiedPeer.remember(engine, chain[0], checked.verdict(), checked.named());
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        checkClientTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        verify(chain);
    }

    /** The verifier's answer and the identity read from the device certificate. */
    private record Checked(DeviceCertificateVerifier.Verdict verdict, CertificateIdentities.Named named) {
    }

    /** @return the verifier's answer (the chain's revocation path, whether it came from its cache) and the identity */
    private Checked verify(X509Certificate[] chain) throws CertificateException {
        if (chain == null || chain.length == 0) {
            throw new CertificateException("no client certificate");
        }
        try {
            DeviceCertificateVerifier.Verdict verdict = verifier.check(chain, clock.getAsLong());
            // after the verifier: a certificate of an unknown CA is refused as that, whatever it names
            return new Checked(verdict, identities.read(chain[0]));
        } catch (RuntimeException e) {
            // BoringSSL answers an unchecked exception with internal_error and the failure would be counted under no
            // reason; a certificate read lazily throws one when the JDK cannot parse it
            throw CertificateRefusals.malformed("unreadable client certificate: " + e);
        }
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        throw new CertificateException("the device listener does not verify servers");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        throw new CertificateException("the device listener does not verify servers");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("the device listener does not verify servers");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return listedIssuers.clone();
    }
}
