package io.mqttgw.core.tls;

import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.X509Bundle;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * A P-256 CA valid around {@code now} and one device key pair, for device certificates written field by field with
 * {@link RawDer}: the CA's name is their issuer, its key signs them, so only their shape can make a verifier refuse.
 */
final class HandSignedCa {
    static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
    static final String ECDSA_SHA256 = "1.2.840.10045.4.3.2";

    private final X509Bundle ca;
    private final KeyPair deviceKey;

    private HandSignedCa(X509Bundle ca, KeyPair deviceKey) {
        this.ca = ca;
        this.deviceKey = deviceKey;
    }

    static HandSignedCa create(String subject, Instant now) throws Exception {
        X509Bundle ca = new CertificateBuilder().ecp256().subject(subject).setIsCertificateAuthority(true)
                .notBefore(now.minus(1, ChronoUnit.DAYS)).notAfter(now.plus(30, ChronoUnit.DAYS)).buildSelfSigned();
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return new HandSignedCa(ca, generator.generateKeyPair());
    }

    X509Certificate certificate() {
        return ca.getCertificate();
    }

    /** The CA's subject in DER, the issuer field of every certificate it signs. */
    byte[] issuer() {
        return ca.getCertificate().getSubjectX500Principal().getEncoded();
    }

    /** The device's SubjectPublicKeyInfo in DER. */
    byte[] deviceKey() {
        return deviceKey.getPublic().getEncoded();
    }

    /** The certificate of {@code tbs}, signed with ECDSA over SHA-256, its algorithm written as {@code outer}. */
    byte[] sign(byte[] tbs, byte[] outerAlgorithm) throws GeneralSecurityException {
        return RawDer.signedCertificate(tbs, outerAlgorithm, ca.getKeyPair().getPrivate(), "SHA256withECDSA");
    }
}
