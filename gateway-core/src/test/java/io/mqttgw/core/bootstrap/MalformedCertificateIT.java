package io.mqttgw.core.bootstrap;

import static io.mqttgw.core.tls.RawDer.algorithm;
import static io.mqttgw.core.tls.RawDer.ascii;
import static io.mqttgw.core.tls.RawDer.concat;
import static io.mqttgw.core.tls.RawDer.extension;
import static io.mqttgw.core.tls.RawDer.integer;
import static io.mqttgw.core.tls.RawDer.name;
import static io.mqttgw.core.tls.RawDer.oid;
import static io.mqttgw.core.tls.RawDer.rdn;
import static io.mqttgw.core.tls.RawDer.seq;
import static io.mqttgw.core.tls.RawDer.tlv;

import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.core.tls.RawDer;
import io.mqttgw.core.tls.TlsFailureReason;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.net.Socket;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A device whose certificate, signed by the configured CA, restricts it to serverAuth in an extended key usage the
 * JDK cannot parse (trailing bytes): the JDK drops such a non-critical extension and both verifiers used to read "no
 * restriction" and let the device in. Over a real TLS socket it is now refused with {@code bad_certificate} and
 * counted as {@code malformed_certificate}, and a well-formed device still connects.
 */
class MalformedCertificateIT {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "verifier {0}, engine {1}")
    @CsvSource({"lean,openssl", "pkix,openssl", "lean,jdk"})
    void refusesADeviceWhoseUnparseableExtendedKeyUsageSaysServerAuthOnly(String verifier, String engine)
            throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        KeyPair key = deviceKey();
        byte[] serverAuthOnly = concat(seq(oid("1.3.6.1.5.5.7.3.1")), new byte[] {0x05, 0x00});
        byte[] der = device(pki, key, "dev-server-only", tlv(0xa0, integer(BigInteger.TWO)),
                extension("2.5.29.37", false, serverAuthOnly));
        X509Certificate certificate = (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(der));
        try (Gateway gateway = start(pki, verifier, engine)) {
            String alert = TlsFrontDoorIT.alertReceived(presenting(certificate, key.getPrivate()), gateway.tlsPort());
            TlsFrontDoorIT.assertAlert("bad_certificate", alert, engine);
            TlsFrontDoorIT.awaitCount(gateway, TlsFailureReason.MALFORMED_CERTIFICATE, 1);
            CertificateRevocationIT.connects(pki.clientContext(pki.device("dev-ok")), gateway.tlsPort(), "dev-ok");
        }
    }

    /**
     * A v2 certificate with extensions, which the JDK cannot parse: the OpenSSL engine hands its DER to the verifier,
     * whose first question to the lazily parsed certificate used to throw an unchecked exception, sent as {@code
     * internal_error} and counted under no reason.
     */
    @ParameterizedTest(name = "verifier {0}, engine {1}")
    @CsvSource({"lean,openssl", "pkix,openssl", "lean,jdk"})
    void refusesACertificateTheJdkCannotParseWithBadCertificate(String verifier, String engine) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        KeyPair key = deviceKey();
        byte[] der = device(pki, key, "dev-v2", tlv(0xa0, integer(BigInteger.ONE)),
                extension("2.5.29.37", false, seq(oid("1.3.6.1.5.5.7.3.2"))));
        // the JDK client needs a parsed certificate to choose it; it sends what getEncoded answers
        byte[] wellFormed = device(pki, key, "dev-v2", tlv(0xa0, integer(BigInteger.TWO)),
                extension("2.5.29.37", false, seq(oid("1.3.6.1.5.5.7.3.2"))));
        X509Certificate parsed = (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(wellFormed));
        X509Certificate sent = new EncodedAs(parsed, der);
        try (Gateway gateway = start(pki, verifier, engine)) {
            String alert = TlsFrontDoorIT.alertReceived(presenting(sent, key.getPrivate()), gateway.tlsPort());
            TlsFrontDoorIT.assertAlert("bad_certificate", alert, engine);
            TlsFrontDoorIT.awaitCount(gateway, TlsFailureReason.MALFORMED_CERTIFICATE, 1);
            CertificateRevocationIT.connects(pki.clientContext(pki.device("dev-ok")), gateway.tlsPort(), "dev-ok");
        }
    }

    private Gateway start(TestPki pki, String verifier, String engine) {
        return TestGateway.tls(pki, dir).with("listener.tls.verifier", verifier).with("listener.tls.engine", engine)
                .start();
    }

    private static KeyPair deviceKey() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    private static byte[] device(TestPki pki, KeyPair key, String cn, byte[] version, byte[] extension)
            throws Exception {
        Instant now = Instant.now();
        DateTimeFormatter utc = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);
        byte[] ecdsaSha256 = algorithm("1.2.840.10045.4.3.2", false);
        byte[] tbs = seq(version, integer(BigInteger.valueOf(77)), ecdsaSha256,
                pki.ca().getCertificate().getSubjectX500Principal().getEncoded(),
                seq(tlv(0x17, ascii(utc.format(now.minus(1, ChronoUnit.HOURS)))),
                        tlv(0x17, ascii(utc.format(now.plus(1, ChronoUnit.DAYS))))),
                name(List.of(rdn("2.5.4.3", 0x0c, cn))), key.getPublic().getEncoded(), tlv(0xa3, seq(extension)));
        return RawDer.signedCertificate(tbs, ecdsaSha256, pki.ca().getKeyPair().getPrivate(), "SHA256withECDSA");
    }

    /** A client context that presents this certificate whatever the server asks, trusting any server. */
    private static SSLContext presenting(X509Certificate certificate, PrivateKey key) throws Exception {
        X509ExtendedKeyManager keys = new X509ExtendedKeyManager() {
            @Override
            public String[] getClientAliases(String keyType, Principal[] issuers) {
                return new String[] {"device"};
            }

            @Override
            public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
                return "device";
            }

            @Override
            public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
                return "device";
            }

            @Override
            public String[] getServerAliases(String keyType, Principal[] issuers) {
                return null;
            }

            @Override
            public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
                return null;
            }

            @Override
            public X509Certificate[] getCertificateChain(String alias) {
                return new X509Certificate[] {certificate};
            }

            @Override
            public PrivateKey getPrivateKey(String alias) {
                return key;
            }
        };
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(new KeyManager[] {keys}, InsecureTrustManagerFactory.INSTANCE.getTrustManagers(), null);
        return context;
    }

    /** A parsed certificate that the client stack can reason about, sent on the wire as other bytes. */
    private static final class EncodedAs extends X509Certificate {
        private final X509Certificate parsed;
        private final byte[] der;

        EncodedAs(X509Certificate parsed, byte[] der) {
            this.parsed = parsed;
            this.der = der;
        }

        @Override
        public byte[] getEncoded() {
            return der.clone();
        }

        @Override
        public void checkValidity() throws java.security.cert.CertificateExpiredException,
                java.security.cert.CertificateNotYetValidException {
            parsed.checkValidity();
        }

        @Override
        public void checkValidity(java.util.Date date) throws java.security.cert.CertificateExpiredException,
                java.security.cert.CertificateNotYetValidException {
            parsed.checkValidity(date);
        }

        @Override
        public int getVersion() {
            return parsed.getVersion();
        }

        @Override
        public BigInteger getSerialNumber() {
            return parsed.getSerialNumber();
        }

        @Override
        public Principal getIssuerDN() {
            return parsed.getIssuerX500Principal();
        }

        @Override
        public javax.security.auth.x500.X500Principal getIssuerX500Principal() {
            return parsed.getIssuerX500Principal();
        }

        @Override
        public Principal getSubjectDN() {
            return parsed.getSubjectX500Principal();
        }

        @Override
        public javax.security.auth.x500.X500Principal getSubjectX500Principal() {
            return parsed.getSubjectX500Principal();
        }

        @Override
        public java.util.Date getNotBefore() {
            return parsed.getNotBefore();
        }

        @Override
        public java.util.Date getNotAfter() {
            return parsed.getNotAfter();
        }

        @Override
        public byte[] getTBSCertificate() throws java.security.cert.CertificateEncodingException {
            return parsed.getTBSCertificate();
        }

        @Override
        public byte[] getSignature() {
            return parsed.getSignature();
        }

        @Override
        public String getSigAlgName() {
            return parsed.getSigAlgName();
        }

        @Override
        public String getSigAlgOID() {
            return parsed.getSigAlgOID();
        }

        @Override
        public byte[] getSigAlgParams() {
            return parsed.getSigAlgParams();
        }

        @Override
        public boolean[] getIssuerUniqueID() {
            return parsed.getIssuerUniqueID();
        }

        @Override
        public boolean[] getSubjectUniqueID() {
            return parsed.getSubjectUniqueID();
        }

        @Override
        public boolean[] getKeyUsage() {
            return parsed.getKeyUsage();
        }

        @Override
        public List<String> getExtendedKeyUsage() throws java.security.cert.CertificateParsingException {
            return parsed.getExtendedKeyUsage();
        }

        @Override
        public int getBasicConstraints() {
            return parsed.getBasicConstraints();
        }

        @Override
        public void verify(java.security.PublicKey key) throws java.security.cert.CertificateException,
                java.security.NoSuchAlgorithmException, java.security.InvalidKeyException,
                java.security.NoSuchProviderException, java.security.SignatureException {
            parsed.verify(key);
        }

        @Override
        public void verify(java.security.PublicKey key, String provider) throws java.security.cert.CertificateException,
                java.security.NoSuchAlgorithmException, java.security.InvalidKeyException,
                java.security.NoSuchProviderException, java.security.SignatureException {
            parsed.verify(key, provider);
        }

        @Override
        public String toString() {
            return "EncodedAs(" + parsed.getSubjectX500Principal() + ")";
        }

        @Override
        public java.security.PublicKey getPublicKey() {
            return parsed.getPublicKey();
        }

        @Override
        public boolean hasUnsupportedCriticalExtension() {
            return parsed.hasUnsupportedCriticalExtension();
        }

        @Override
        public java.util.Set<String> getCriticalExtensionOIDs() {
            return parsed.getCriticalExtensionOIDs();
        }

        @Override
        public java.util.Set<String> getNonCriticalExtensionOIDs() {
            return parsed.getNonCriticalExtensionOIDs();
        }

        @Override
        public byte[] getExtensionValue(String oid) {
            return parsed.getExtensionValue(oid);
        }
    }
}
