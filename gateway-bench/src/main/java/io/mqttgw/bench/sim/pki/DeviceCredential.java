package io.mqttgw.bench.sim.pki;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * One device's certificate and key kept as DER (about 0.6 KB for P-256), parsed only when a handshake asks for
 * them, so a client holding hundreds of thousands of devices does not keep as many JDK key objects. Immutable.
 *
 * @param keyDer the private key as PKCS#8 DER, EC or RSA
 */
public record DeviceCredential(byte[] certificateDer, byte[] keyDer) {
    public X509Certificate certificate() {
        try {
            return new JcaX509CertificateConverter().getCertificate(new X509CertificateHolder(certificateDer));
        } catch (IOException e) {
            throw new UncheckedIOException("not an X.509 certificate", e);
        } catch (CertificateException e) {
            throw new IllegalArgumentException("not an X.509 certificate", e);
        }
    }

    public PrivateKey privateKey() {
        try {
            return new JcaPEMKeyConverter().getPrivateKey(PrivateKeyInfo.getInstance(keyDer));
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("not an unencrypted PKCS#8 key", e);
        }
    }
}
