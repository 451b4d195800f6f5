package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.security.KeyFactory;
import java.security.Principal;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Project Wycheproof's ECDSA vectors (DER signatures; P-256, P-384 and P-521 with every SHA-2 hash Wycheproof has a
 * DER file for; vendored under {@code src/test/resources/wycheproof} with their licence) against every path the
 * verifier checks an ECDSA certificate signature on:
 * <ul>
 *   <li>a configured P-256 CA key: BouncyCastle's {@code ECDSASigner} with a per-thread precomputed point;</li>
 *   <li>a configured P-384 or P-521 CA key: BouncyCastle's {@code ECDSASigner} with a per-thread precomputed
 *   point;</li>
 *   <li>a key the device sent (an intermediate), any of the three curves: BouncyCastle's signer, nothing kept.</li>
 * </ul>
 * All three start with {@link EcdsaSignature#strictDer}, so the encoding vectors (BER lengths, missing or extra zero
 * bytes, wrong tags, trailing bytes) test it on every path. The JDK's {@code Signature} path of {@link IssuerKey} is
 * taken only by keys on curves without BouncyCastle's custom arithmetic; no key of these files reaches it (asserted
 * below), and JDK 17's SunEC knows no other ECDSA curve, so it serves RSA and EdDSA keys only.
 *
 * <p>A vector marked valid must verify and one marked invalid must not, on every path. Wycheproof also marks some
 * vectors "acceptable" (legal but questionable, e.g. a weak parameter): these files have none today; should a refresh
 * bring some, the test requires them refused (a signature has one encoding here) and says so in its message.
 */
class WycheproofEcdsaTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> SIGNATURE_OID = Map.of("SHA-256", "1.2.840.10045.4.3.2",
            "SHA-384", "1.2.840.10045.4.3.3", "SHA-512", "1.2.840.10045.4.3.4");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ecdsa_secp256r1_sha256", "ecdsa_secp256r1_sha512", "ecdsa_secp384r1_sha256",
            "ecdsa_secp384r1_sha384", "ecdsa_secp384r1_sha512", "ecdsa_secp521r1_sha512"})
    void everySignaturePathAgreesWithWycheproof(String file) throws Exception {
        JsonNode suite = read(file);
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (JsonNode group : suite.get("testGroups")) {
            PublicKey key = KeyFactory.getInstance("EC").generatePublic(
                    new X509EncodedKeySpec(HexFormat.of().parseHex(group.get("publicKeyDer").asText())));
            String digest = group.get("sha").asText();
            Map<String, Function<X509Certificate, Boolean>> paths = paths(key, file);
            for (JsonNode vector : group.get("tests")) {
                String result = vector.get("result").asText();
                boolean expected = "valid".equals(result);
                X509Certificate signed = new SignedBytes(HexFormat.of().parseHex(vector.get("msg").asText()),
                        HexFormat.of().parseHex(vector.get("sig").asText()), SIGNATURE_OID.get(digest));
                for (Map.Entry<String, Function<X509Certificate, Boolean>> path : paths.entrySet()) {
                    boolean got = path.getValue().apply(signed);
                    if (got != expected) {
                        wrong.add(path.getKey() + " tcId " + vector.get("tcId") + " (" + result + ", "
                                + vector.get("comment").asText() + "): " + (got ? "accepted" : "refused"));
                    }
                    checked++;
                }
            }
        }
        assertEquals(suite.get("numberOfTests").asInt() * 2, checked, "every vector on both paths of its curve");
        assertEquals(List.of(), wrong, file);
    }

    /** The two paths a key of this curve can take: configured (CA file) and sent (intermediate). */
    private static Map<String, Function<X509Certificate, Boolean>> paths(PublicKey key, String file) {
        IssuerKey configured = IssuerKey.configured(key);
        IssuerKey sent = IssuerKey.sent(key);
        assertTrue(configured.curveArithmetic() && sent.curveArithmetic(),
                "keys on this curve never take the JDK provider's path");
        String configuredPath = file.contains("secp256r1") ? "configured P-256 key (BouncyCastle, per-thread table)"
                : "configured key (BouncyCastle, per-thread table)";
        return Map.of(configuredPath, configured::verifies, "sent key (BouncyCastle)", sent::verifies);
    }

    private static JsonNode read(String file) throws IOException {
        String path = "/wycheproof/" + file + ".json.gz";
        try (InputStream in = WycheproofEcdsaTest.class.getResourceAsStream(path)) {
            assertTrue(in != null, path + " is vendored");
            return JSON.readTree(new GZIPInputStream(in));
        }
    }

    /**
     * The certificate surface {@link IssuerKey#verifies(X509Certificate)} reads: to-be-signed bytes (the vector's
     * message), the signature and its algorithm. Everything else is absent.
     */
    private static final class SignedBytes extends X509Certificate {
        private final byte[] tbs;
        private final byte[] signature;
        private final String algorithmOid;

        SignedBytes(byte[] tbs, byte[] signature, String algorithmOid) {
            this.tbs = tbs;
            this.signature = signature;
            this.algorithmOid = algorithmOid;
        }

        @Override
        public byte[] getTBSCertificate() {
            return tbs.clone();
        }

        @Override
        public byte[] getSignature() {
            return signature.clone();
        }

        @Override
        public String getSigAlgOID() {
            return algorithmOid;
        }

        @Override
        public String getSigAlgName() {
            return "ECDSA with " + algorithmOid;
        }

        @Override
        public byte[] getSigAlgParams() {
            return null;
        }

        @Override
        public void checkValidity() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void checkValidity(Date date) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int getVersion() {
            return 3;
        }

        @Override
        public BigInteger getSerialNumber() {
            return BigInteger.ONE;
        }

        @Override
        public Principal getIssuerDN() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Principal getSubjectDN() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Date getNotBefore() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Date getNotAfter() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean[] getIssuerUniqueID() {
            return null;
        }

        @Override
        public boolean[] getSubjectUniqueID() {
            return null;
        }

        @Override
        public boolean[] getKeyUsage() {
            return null;
        }

        @Override
        public int getBasicConstraints() {
            return -1;
        }

        @Override
        public byte[] getEncoded() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void verify(PublicKey key) {
            throw new UnsupportedOperationException("IssuerKey must not call the certificate's own verify");
        }

        @Override
        public void verify(PublicKey key, String sigProvider) {
            throw new UnsupportedOperationException("IssuerKey must not call the certificate's own verify");
        }

        @Override
        public String toString() {
            return "signed bytes";
        }

        @Override
        public PublicKey getPublicKey() {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean hasUnsupportedCriticalExtension() {
            return false;
        }

        @Override
        public Set<String> getCriticalExtensionOIDs() {
            return Set.of();
        }

        @Override
        public Set<String> getNonCriticalExtensionOIDs() {
            return Set.of();
        }

        @Override
        public byte[] getExtensionValue(String oid) {
            return null;
        }
    }
}
