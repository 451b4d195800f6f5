package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The x509-limbo path-validation cases that apply to a device certificate, through both verifiers
 * ({@code listener.tls.verifier: lean} and {@code pkix}), as the gateway calls them: every certificate of the case's
 * trusted set is a CA of {@code listener.tls.ca-file}, the untrusted intermediates are what the device sends after its
 * own certificate, the case's CRLs are {@code listener.tls.crl-file} (soft mode), and the check runs at the case's
 * validation time. The subset, and how it was made, is under {@code src/test/resources/x509-limbo}.
 *
 * <p>Every case's expected result must match, except the cases skipped ({@link #SKIPPED}, each with why) and the known
 * divergences ({@link #KNOWN_LEAN}, {@link #KNOWN_PKIX}): places where a verifier is more or less permissive than
 * x509-limbo expects today. Those lists are exact: a divergence not listed fails the test, and so does a listed one
 * that no longer diverges (take it off the list).
 */
class LimboClientTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ANY_USAGE = "2.5.29.37.0";
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

    /** Cases of the subset not run, by id prefix or id, with why. */
    static final Map<String, String> SKIPPED = new TreeMap<>(Map.ofEntries(
            Map.entry("pathlen::max-chain-depth-",
                    "a validator option the gateway does not have: its bound is fixed at 3 sent intermediates "
                            + "(DeviceCertificateVerifierTest)"),
            Map.entry("rfc5280::eku::ee-wrong-eku",
                    "its leaf is clientAuth-only, wrong for the server validation it was written for and the valid "
                            + "case for a device"),
            Map.entry("rfc5280::ca-as-leaf-wrong-san",
                    "fails on the peer name only; devices are not matched against a host name"),
            Map.entry("rfc5280::ca-as-leaf",
                    "client profile: its leaf is a CA certificate whose key usage lacks digitalSignature, which a "
                            + "device needs to sign its handshake (refused as wrong usage)"),
            Map.entry("pathlen::validation-ignores-pathlen-in-leaf",
                    "client profile: leaf key usage without digitalSignature (as rfc5280::ca-as-leaf)"),
            Map.entry("webpki::v1-cert", "CA/Browser Forum rule; RFC 5280 allows a v1 end-entity certificate"),
            Map.entry("webpki::malformed-aia",
                    "CA/Browser Forum rule on an extension neither verifier evaluates (authorityInfoAccess)"),
            Map.entry("webpki::ee-basicconstraints-ca",
                    "CA/Browser Forum rule; RFC 5280 allows cA=TRUE without keyCertSign in an end-entity")));

    /*
     * Why a verifier diverges, one reason per kind of divergence. The findings are reported; the verifiers are not
     * changed by this test.
     */
    private static final String CA_FILE_WHOLE = "by design: every certificate of the CA file must be a CA the "
            + "gateway can honour (an unknown critical extension is a configuration error), even one no device's "
            + "path goes through";
    private static final String ISSUANCE = "AKI/SKI presence, an issuance rule for path building, is not enforced: "
            + "the configured CAs are matched by name and key, and many device PKIs (and OpenSSL's default "
            + "verification) go without it";
    private static final String SAN_CONTENT = "kept by decision: the syntax of a SAN dNSName is checked where it is "
            + "matched against something, under name constraints (refused there); elsewhere it is matched against "
            + "nothing (devices are not checked against a host name) and with identity.source san-dns it is an "
            + "opaque identity, so refusing odd but harmless SANs (device_7.fleet.example) would lock fleets out "
            + "for no gain";
    private static final String LEAN_NO_BACKTRACK = "the lean walk takes the configured CA of the issuer's name, then "
            + "a sent CA of that name whose key verifies, without backtracking; the valid path goes another way";
    private static final String LEAN_VIA_PKIX = "a chain through a CA with name constraints is decided by PKIX (see "
            + "PKIX_AS_SENT)";
    private static final String PKIX_AS_SENT = "pkix validates the chain in the order the device sent it, without "
            + "path building: extra, unordered or alternative certificates fail a valid path";

    /**
     * Where the lean verifier's answer differs from x509-limbo's today: id, and what happens. Reported to be decided;
     * the verifier is not changed here.
     */
    static final Map<String, String> KNOWN_LEAN = new TreeMap<>(Map.ofEntries(
            Map.entry("rfc5280::aki::cross-signed-root-missing-aki", ISSUANCE),
            Map.entry("rfc5280::aki::intermediate-missing-aki", ISSUANCE),
            Map.entry("rfc5280::aki::leaf-missing-aki", ISSUANCE),
            Map.entry("rfc5280::nc::nc-forbids-alternate-chain-ica", LEAN_NO_BACKTRACK),
            Map.entry("rfc5280::nc::nc-forbids-same-chain-ica", LEAN_VIA_PKIX),
            Map.entry("rfc5280::san::ip-in-dns", SAN_CONTENT),
            Map.entry("rfc5280::san::underscore-dns", SAN_CONTENT),
            Map.entry("rfc5280::ski::intermediate-missing-ski", ISSUANCE),
            Map.entry("rfc5280::ski::root-missing-ski", ISSUANCE),
            Map.entry("rfc5280::unknown-critical-extension-unrelated-root", CA_FILE_WHOLE)));

    /** Where the JDK PKIX verifier (with the gateway's policy on top) differs from x509-limbo today. */
    static final Map<String, String> KNOWN_PKIX = new TreeMap<>(Map.ofEntries(
            Map.entry("cve::cve-2024-0567", PKIX_AS_SENT),
            Map.entry("pathlen::intermediate-pathlen-may-increase", PKIX_AS_SENT),
            Map.entry("pathlen::self-issued-certs-pathlen", PKIX_AS_SENT),
            Map.entry("pathological::multiple-chains-expired-intermediate", PKIX_AS_SENT),
            Map.entry("rfc5280::aki::cross-signed-root-missing-aki", ISSUANCE),
            Map.entry("rfc5280::aki::intermediate-missing-aki", ISSUANCE),
            Map.entry("rfc5280::aki::leaf-missing-aki", ISSUANCE),
            Map.entry("rfc5280::nc::nc-forbids-alternate-chain-ica", PKIX_AS_SENT),
            Map.entry("rfc5280::nc::nc-forbids-same-chain-ica", PKIX_AS_SENT),
            Map.entry("rfc5280::root-and-intermediate-swapped", PKIX_AS_SENT),
            Map.entry("rfc5280::san::ip-in-dns", SAN_CONTENT),
            Map.entry("rfc5280::san::underscore-dns", SAN_CONTENT),
            Map.entry("rfc5280::ski::intermediate-missing-ski", ISSUANCE),
            Map.entry("rfc5280::ski::root-missing-ski", ISSUANCE),
            Map.entry("rfc5280::unknown-critical-extension-unrelated-intermediate", PKIX_AS_SENT),
            Map.entry("rfc5280::unknown-critical-extension-unrelated-root", CA_FILE_WHOLE)));

    private static List<JsonNode> cases;

    @BeforeAll
    static void read() throws IOException {
        String path = "/x509-limbo/limbo-client-subset.json.gz";
        try (InputStream in = LimboClientTest.class.getResourceAsStream(path)) {
            assertTrue(in != null, path + " is vendored");
            cases = new ArrayList<>();
            JSON.readTree(new GZIPInputStream(in)).get("testcases").forEach(cases::add);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lean", "pkix"})
    void matchesTheExpectedResultOfEveryApplicableCase(String kind) throws Exception {
        Map<String, String> diverged = new TreeMap<>();
        Set<String> skippedSeen = new TreeSet<>();
        int run = 0;
        for (JsonNode c : cases) {
            String id = c.get("id").asText();
            String skip = skipReason(id);
            if (skip != null) {
                skippedSeen.add(SKIPPED.containsKey(id) ? id : prefixOf(id));
                continue;
            }
            boolean expected = "SUCCESS".equals(c.get("expected_result").asText());
            long start = System.nanoTime();
            String got = outcome(kind, c);
            long millis = (System.nanoTime() - start) / 1_000_000;
            // a pathological chain must be refused (or accepted) quickly, not only correctly
            assertTrue(millis < 20_000, id + " took " + millis + " ms");
            run++;
            if (got.equals("accepted") != expected) {
                diverged.put(id, "expected " + (expected ? "SUCCESS" : "FAILURE") + ", got " + got);
            }
        }
        assertEquals(SKIPPED.keySet(), skippedSeen, "every skip entry names cases of the subset");
        Map<String, String> known = "lean".equals(kind) ? KNOWN_LEAN : KNOWN_PKIX;
        StringBuilder report = new StringBuilder();
        diverged.forEach((id, what) -> report.append('\n').append(id).append(": ").append(what));
        assertEquals(known.keySet(), diverged.keySet(), kind + " diverges from x509-limbo on:" + report);
        assertTrue(run >= 100, "most of the subset runs: " + run);
    }

    private static String skipReason(String id) {
        if (SKIPPED.containsKey(id)) {
            return SKIPPED.get(id);
        }
        String prefix = prefixOf(id);
        return prefix == null ? null : SKIPPED.get(prefix);
    }

    private static String prefixOf(String id) {
        for (String key : SKIPPED.keySet()) {
            if (key.endsWith("-") && id.startsWith(key)) {
                return key;
            }
        }
        return null;
    }

    /** "accepted", or how it was refused: the refusal's type, or that a file would not load. */
    private static String outcome(String kind, JsonNode c) {
        List<X509Certificate> cas;
        List<X509CRL> crls = new ArrayList<>();
        RevocationLists revocation;
        try {
            cas = certificates(c.get("trusted_certs"));
            // what the gateway refuses in listener.tls.ca-file at startup
            ConfiguredCas.require(cas, "listener.tls.ca-file");
            for (JsonNode crl : c.get("crls")) {
                crls.add((X509CRL) factory().generateCRL(pem(crl)));
            }
            // and in listener.tls.crl-file
            revocation = crls.isEmpty() ? RevocationLists.NONE : RevocationLists.of(crls, cas);
        } catch (GeneralSecurityException | RuntimeException e) {
            return "refused at configuration (" + e.getClass().getSimpleName() + ")";
        }
        X509Certificate[] chain;
        try {
            List<X509Certificate> sent = new ArrayList<>();
            sent.add((X509Certificate) factory().generateCertificate(pem(c.get("peer_certificate"))));
            sent.addAll(certificates(c.get("untrusted_intermediates")));
            chain = sent.toArray(new X509Certificate[0]);
        } catch (GeneralSecurityException | RuntimeException e) {
            // the TLS engine hands the verifier only certificates the JDK can parse
            return "refused: unparseable (" + e.getClass().getSimpleName() + ")";
        }
        JsonNode at = c.get("validation_time");
        // no time given: now, as x509-limbo's harnesses do
        long now = at == null || at.isNull() ? System.currentTimeMillis()
                : OffsetDateTime.parse(at.asText()).toInstant().toEpochMilli();
        try {
            DeviceCertificateVerifier verifier = "lean".equals(kind)
                    ? DeviceCertificateVerifier.lean(cas, revocation, false, 0)
                    : DeviceCertificateVerifier.pkix(cas, revocation, false);
            verifier.verify(chain, now);
            return "accepted";
        } catch (CertificateException e) {
            return "refused (" + e.getClass().getSimpleName() + ": " + TlsHandshakeHandler.detail(e) + ")";
        } catch (GeneralSecurityException | RuntimeException e) {
            return "refused by an unchecked " + e.getClass().getName() + ": " + e.getMessage();
        }
    }

    private static List<X509Certificate> certificates(JsonNode pems) throws CertificateException {
        List<X509Certificate> out = new ArrayList<>();
        for (JsonNode pem : pems) {
            out.add((X509Certificate) factory().generateCertificate(pem(pem)));
        }
        return out;
    }

    private static ByteArrayInputStream pem(JsonNode text) {
        return new ByteArrayInputStream(text.asText().getBytes(StandardCharsets.US_ASCII));
    }

    private static CertificateFactory factory() throws CertificateException {
        return CertificateFactory.getInstance("X.509");
    }
}
