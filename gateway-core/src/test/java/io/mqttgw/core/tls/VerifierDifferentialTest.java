package io.mqttgw.core.tls;

import static io.mqttgw.core.tls.RawDer.algorithm;
import static io.mqttgw.core.tls.RawDer.ascii;
import static io.mqttgw.core.tls.RawDer.bool;
import static io.mqttgw.core.tls.RawDer.concat;
import static io.mqttgw.core.tls.RawDer.extension;
import static io.mqttgw.core.tls.RawDer.integer;
import static io.mqttgw.core.tls.RawDer.name;
import static io.mqttgw.core.tls.RawDer.oid;
import static io.mqttgw.core.tls.RawDer.rdn;
import static io.mqttgw.core.tls.RawDer.seq;
import static io.mqttgw.core.tls.RawDer.tlv;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.ssl.util.LazyX509Certificate;
import io.netty.pkitesting.CertificateBuilder;
import io.netty.pkitesting.CertificateBuilder.Algorithm;
import io.netty.pkitesting.X509Bundle;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One rule set, two speeds, checked by generation: random certificate chains (well-formed and mutated: every
 * extension the verifiers evaluate malformed, truncated, duplicated, critical or not; string types; time forms; v1/v2;
 * algorithm mismatches; chains through 0-3 sent CAs), each signed for real so that a malformed field still carries a
 * valid signature, are fed to the lean verifier's DER fast path, its parsed path and the JDK PKIX verifier. The
 * properties: {@code fast accepts => parsed accepts}, {@code parsed accepts => pkix accepts} (but for
 * {@link #PKIX_EXCEPTIONS}), and no unchecked exception leaves the trust manager.
 *
 * <p>{@code -Ddifferential.cases=200000} runs more cases, {@code -Ddifferential.seed=...} repeats a failed run (the
 * seed is printed with every failure; case {@code i} is generated from {@code seed + i} alone).
 */
class VerifierDifferentialTest {
    private static final int CASES = Integer.getInteger("differential.cases", 2000);
    private static final long SEED = Long.getLong("differential.seed", System.nanoTime());

    /**
     * The one list of features on which the parsed path may accept what the JDK's PKIX refuses, and why. A case
     * that carries one of them is exempt from {@code parsed accepts => pkix accepts} only.
     */
    static final Map<String, String> PKIX_EXCEPTIONS = Map.of(
            "chainOutOfOrder", "the lean verifier finds a sent CA anywhere in what the device sent (TLS 1.3 lets a "
                    + "peer send its chain in any order after its own certificate); the JDK's PKIX wants it in order",
            "unusedCertificate", "the lean verifiers ignore a sent certificate the path does not need (the DER path "
                    + "reads the device certificate alone); PKIX validates everything sent as one path");

    private static final long NOW = Instant.now().truncatedTo(ChronoUnit.SECONDS).toEpochMilli();
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    private static final String ANY_USAGE = "2.5.29.37.0";
    private static final String KU = "2.5.29.15";
    private static final String EKU = "2.5.29.37";
    private static final String BC = "2.5.29.19";
    private static final String SAN = "2.5.29.17";
    private static final String NC = "2.5.29.30";
    private static final String POLICIES = "2.5.29.32";
    private static final String PRIVATE = "1.3.6.1.4.1.99999.1";
    private static final String ECDSA_SHA256 = "1.2.840.10045.4.3.2";
    private static final String ECDSA_SHA384 = "1.2.840.10045.4.3.3";
    private static final String ECDSA_SHA1 = "1.2.840.10045.4.1";
    private static final String RSA_SHA256 = "1.2.840.113549.1.1.11";

    /** A signing authority: its name as encoded in its own certificate, its key, and the algorithm it signs with. */
    private record Signer(byte[] name, KeyPair keys, String algorithmOid, String jdkAlgorithm, boolean nullParams) {
    }

    private static Signer p256Root;
    private static Signer p384Root;
    private static Signer rsaRoot;
    private static Signer unknownRoot;
    private static List<X509Certificate> configured;
    private static KeyPair[] subjectKeys;

    @BeforeAll
    static void authorities() throws Exception {
        configured = new ArrayList<>();
        p256Root = root("CN=Differential P-256 CA, O=Acme", Algorithm.ecp256, ECDSA_SHA256, "SHA256withECDSA", false,
                true);
        p384Root = root("CN=Differential P-384 CA, O=Acme", Algorithm.ecp384, ECDSA_SHA384, "SHA384withECDSA", false,
                true);
        rsaRoot = root("CN=Differential RSA CA", Algorithm.rsa2048, RSA_SHA256, "SHA256withRSA", true, true);
        // the name of a configured CA, another key: an attacker's CA
        unknownRoot = root("CN=Differential P-256 CA, O=Acme", Algorithm.ecp256, ECDSA_SHA256, "SHA256withECDSA",
                false, false);
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        subjectKeys = new KeyPair[5];
        for (int i = 0; i < subjectKeys.length; i++) {
            subjectKeys[i] = generator.generateKeyPair();
        }
    }

    private static Signer root(String subject, Algorithm algorithm, String oid, String jdk, boolean nullParams,
                               boolean trusted) throws Exception {
        X509Bundle bundle = new CertificateBuilder().algorithm(algorithm).subject(subject)
                .setIsCertificateAuthority(true).notBefore(Instant.ofEpochMilli(NOW).minus(10, ChronoUnit.DAYS))
                .notAfter(Instant.ofEpochMilli(NOW).plus(300, ChronoUnit.DAYS)).buildSelfSigned();
        if (trusted) {
            configured.add(bundle.getCertificate());
        }
        return new Signer(bundle.getCertificate().getSubjectX500Principal().getEncoded(), bundle.getKeyPair(), oid,
                jdk, nullParams);
    }

    /** What one generated case produced: the chain (device first) and the features it was built with. */
    private record Case(List<byte[]> chain, Set<String> features) {
    }

    @Test
    void fastPathNeverAcceptsWhatTheParsedPathRefusesAndParsedNeverWhatPkixRefuses() throws Exception {
        CertificatePolicy policy = new CertificatePolicy(RevocationLists.NONE, false);
        LeanVerifier fast = new LeanVerifier(configured, policy, 0, true);
        CertificateIdentities identities = new CertificateIdentities("cn");
        DeviceTrustManager parsed = new DeviceTrustManager(new LeanVerifier(configured, policy, 0, false),
                identities, new X509Certificate[0], () -> NOW);
        DeviceTrustManager pkix = new DeviceTrustManager(new PkixVerifier(configured, policy), identities,
                new X509Certificate[0], () -> NOW);
        List<String> failures = new ArrayList<>();
        int fastAccepted = 0;
        int parsedAccepted = 0;
        int pkixAccepted = 0;
        long started = System.nanoTime();
        for (int i = 0; i < CASES && failures.size() < 20; i++) {
            Case c = generate(new Random(SEED + i));
            X509Certificate[] chain = new X509Certificate[c.chain().size()];
            for (int k = 0; k < chain.length; k++) {
                chain[k] = new LazyX509Certificate(c.chain().get(k));
            }
            // as the trust manager takes it: the fast path's verdict, then the identity read from the DER
            boolean fastAccepts = fast.verifiedFromDer(c.chain().get(0), NOW) != null
                    && readable(identities, chain[0]);
            String parsedOutcome = outcome(parsed, chain);
            // PKIX is the slow one (the JDK's EC arithmetic): asked whenever the parsed path accepts, and for one in
            // four refusals, to see that it too lets no unchecked exception out
            String pkixOutcome = parsedOutcome == null || i % 4 == 0 ? outcome(pkix, fresh(c)) : "not asked";
            fastAccepted += fastAccepts ? 1 : 0;
            parsedAccepted += parsedOutcome == null ? 1 : 0;
            pkixAccepted += pkixOutcome == null ? 1 : 0;
            String problem = null;
            if (parsedOutcome != null && parsedOutcome.startsWith("unchecked")) {
                problem = "lean trust manager let out " + parsedOutcome;
            } else if (pkixOutcome != null && pkixOutcome.startsWith("unchecked")) {
                problem = "pkix trust manager let out " + pkixOutcome;
            } else if (fastAccepts && parsedOutcome != null) {
                problem = "fast path accepts, parsed path refuses: " + parsedOutcome;
            } else if (parsedOutcome == null && pkixOutcome != null
                    && c.features().stream().noneMatch(PKIX_EXCEPTIONS::containsKey)) {
                problem = "parsed path accepts, pkix refuses: " + pkixOutcome;
            }
            if (problem != null) {
                failures.add("case " + i + " " + c.features() + ": " + problem + "\n    device "
                        + Base64.getEncoder().encodeToString(c.chain().get(0)));
            }
        }
        System.out.printf(Locale.ROOT,
                "differential: %d cases, seed %d, %d accepted by the fast path, %d by the parsed path, "
                + "%d by PKIX, %d ms%n", CASES, SEED, fastAccepted, parsedAccepted, pkixAccepted,
                (System.nanoTime() - started) / 1_000_000);
        assertTrue(failures.isEmpty(), () -> "seed " + SEED + " (-Ddifferential.seed=" + SEED + "), "
                + failures.size() + " failure(s):\n" + String.join("\n", failures));
        // a generator that makes nothing acceptable would prove nothing
        int cases = CASES;
        assertTrue(fastAccepted > cases / 20, "seed " + SEED + ": only " + fastAccepted + " fast acceptances");
        assertTrue(parsedAccepted > cases / 10, "seed " + SEED + ": only " + parsedAccepted + " parsed acceptances");
        assertTrue(pkixAccepted > cases / 10, "seed " + SEED + ": only " + pkixAccepted + " pkix acceptances");
        assertTrue(parsedAccepted < cases - cases / 10, "seed " + SEED + ": " + parsedAccepted + " of " + cases
                + " accepted: too few mutations reach the verifiers");
    }

    private static X509Certificate[] fresh(Case c) {
        X509Certificate[] chain = new X509Certificate[c.chain().size()];
        for (int k = 0; k < chain.length; k++) {
            chain[k] = new LazyX509Certificate(c.chain().get(k));
        }
        return chain;
    }

    /** Null when accepted; the refusal otherwise, "unchecked ..." for anything but a CertificateException. */
    private static boolean readable(CertificateIdentities identities, X509Certificate device) {
        try {
            identities.read(device);
            return true;
        } catch (CertificateException | RuntimeException e) {
            return false;
        }
    }

    private static String outcome(DeviceTrustManager trust, X509Certificate[] chain) {
        try {
            trust.checkClientTrusted(chain, "EC");
            return null;
        } catch (CertificateException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        } catch (RuntimeException e) {
            return "unchecked " + e;
        }
    }

    // ---------------------------------------------------------------- generation

    private static Case generate(Random r) throws Exception {
        Set<String> features = new LinkedHashSet<>();
        int pick = r.nextInt(20);
        Signer issuer = pick < 14 ? p256Root : pick < 17 ? p384Root : pick < 19 ? rsaRoot : unknownRoot;
        if (issuer == unknownRoot) {
            features.add("unknownRoot");
        }
        int depth = r.nextInt(10) < 6 ? 0 : 1 + r.nextInt(3);
        List<byte[]> sent = new ArrayList<>();
        for (int d = 0; d < depth; d++) {
            KeyPair key = subjectKeys[1 + d];
            byte[] name = name(List.of(rdn("2.5.4.3", 0x0c, "Differential sub CA " + d)));
            byte[] cert = certificate(r, issuer, name, key, true, r.nextInt(8) == 0, features, "ca" + d + ".");
            sent.add(0, cert);
            issuer = new Signer(name, key, ECDSA_SHA256, "SHA256withECDSA", false);
        }
        byte[] device = certificate(r, issuer, null, subjectKeys[0], false, r.nextInt(5) < 3, features, "");
        List<byte[]> chain = new ArrayList<>();
        chain.add(device);
        chain.addAll(sent);
        if (r.nextInt(40) == 0) {
            // a certificate the path does not need, maybe malformed: the lean paths ignore it, PKIX wants none
            chain.add(certificate(r, p256Root, name(List.of(rdn("2.5.4.3", 0x0c, "Unrelated"))), subjectKeys[4],
                    true, r.nextBoolean(), new LinkedHashSet<>(), ""));
            features.add("unusedCertificate");
        }
        if (r.nextInt(30) == 0 && chain.size() > 2) {
            java.util.Collections.swap(chain, 1, 2);
            features.add("chainOutOfOrder");
        }
        return new Case(chain, features);
    }

    /** One certificate, issued by {@code issuer}; with {@code mutate}, one to three parts of it go wrong. */
    private static byte[] certificate(Random r, Signer issuer, byte[] subjectName, KeyPair subjectKey, boolean ca,
                                      boolean mutate, Set<String> features, String prefix) throws Exception {
        Set<String> m = new LinkedHashSet<>();
        if (mutate) {
            int n = 1 + r.nextInt(3);
            for (int i = 0; i < n; i++) {
                m.add(MUTATIONS[r.nextInt(MUTATIONS.length)]);
            }
        }
        for (String s : m) {
            features.add(prefix + s);
        }
        // extensions
        List<byte[]> extensions = new ArrayList<>();
        if (ca) {
            extensions.add(extension(BC, true, basicConstraints(r, m, true)));
            extensions.add(extension(KU, true, keyUsage(r, m, true)));
            if (m.contains("nameConstraints")) {
                features.add("nameConstraints");
                extensions.add(extension(NC, r.nextBoolean(), nameConstraints(r)));
            }
        } else {
            int ku = r.nextInt(3);
            if (ku > 0 || m.contains("ku")) {
                extensions.add(extension(KU, critical(r, m), keyUsage(r, m, false)));
            }
            if (r.nextBoolean() || m.contains("eku")) {
                extensions.add(extension(EKU, critical(r, m), extendedKeyUsage(r, m)));
            }
            if (r.nextInt(4) == 0 || m.contains("bc")) {
                extensions.add(extension(BC, critical(r, m), basicConstraints(r, m, false)));
            }
            if (m.contains("nameConstraints")) {
                // only a CA may carry them (RFC 5280 4.2.1.10): the fast path must leave them to the parsed one
                extensions.add(extension(NC, r.nextBoolean(), seq(tlv(0xa0, seq(tlv(0x82,
                        ascii("permitted.example")))))));
            }
        }
        if (r.nextInt(3) == 0 || m.contains("san") || m.contains("emptySubject")) {
            extensions.add(extension(SAN, critical(r, m) || m.contains("emptySubject"), subjectAltName(r, m)));
        }
        if (m.contains("privateExtension")) {
            extensions.add(extension(PRIVATE, r.nextBoolean(), tlv(0x0c, ascii("x"))));
        }
        if (m.contains("policies")) {
            extensions.add(extension(POLICIES, r.nextBoolean(), seq(seq(oid("2.5.29.32.0")))));
        }
        if (m.contains("explicitNotCritical") && !extensions.isEmpty()) {
            byte[] first = extensions.get(0);
            extensions.set(0, rewrapNotCritical(first));
        }
        if (m.contains("duplicateExtension") && !extensions.isEmpty()) {
            extensions.add(extensions.get(r.nextInt(extensions.size())));
        }
        java.util.Collections.shuffle(extensions, r);

        byte[] algorithm = algorithm(issuer.algorithmOid(), issuer.nullParams() || m.contains("algorithmNullParams"));
        byte[] outerAlgorithm = algorithm;
        String jdkAlgorithm = issuer.jdkAlgorithm();
        if (m.contains("sha1") && issuer.jdkAlgorithm().endsWith("ECDSA")) {
            algorithm = outerAlgorithm = algorithm(ECDSA_SHA1, false);
            jdkAlgorithm = "SHA1withECDSA";
        }
        if (m.contains("outerAlgorithmMismatch")) {
            outerAlgorithm = algorithm(issuer.algorithmOid().equals(ECDSA_SHA256) ? ECDSA_SHA384 : ECDSA_SHA256,
                    false);
        }

        List<byte[]> tbs = new ArrayList<>();
        if (m.contains("v1")) {
            // no version field
        } else if (m.contains("v1Explicit")) {
            tbs.add(tlv(0xa0, integer(BigInteger.ZERO)));
        } else if (m.contains("v2")) {
            tbs.add(tlv(0xa0, integer(BigInteger.ONE)));
        } else {
            tbs.add(tlv(0xa0, integer(BigInteger.TWO)));
        }
        tbs.add(serial(r, m));
        tbs.add(algorithm);
        tbs.add(m.contains("issuerReencoded") ? reencoded(issuer.name()) : issuer.name());
        tbs.add(validity(r, m));
        tbs.add(subjectName != null && !m.contains("subjectNotAName") ? subjectName : subject(r, m));
        tbs.add(publicKeyInfo(subjectKey, m));
        if (m.contains("uniqueId")) {
            int which = r.nextInt(3);                   // issuer's, subject's, or both
            if (which != 1) {
                tbs.add(tlv(0x81, new byte[] {0, 1, 2}));
            }
            if (which != 0) {
                tbs.add(tlv(0x82, new byte[] {0, 3}));
            }
        }
        if (!extensions.isEmpty() || m.contains("emptyExtensions")) {
            tbs.add(tlv(0xa3, seq(extensions.toArray(new byte[0][]))));
        }
        if (m.contains("tbsTrailing")) {
            tbs.add(new byte[] {0x05, 0x00});
        }
        byte[] tbsDer = seq(tbs.toArray(new byte[0][]));
        PrivateKey signingKey = m.contains("wrongSigner") ? subjectKeys[3].getPrivate() : issuer.keys().getPrivate();
        if (m.contains("wrongSigner") && !jdkAlgorithm.endsWith("ECDSA")) {
            signingKey = issuer.keys().getPrivate();
        }
        byte[] certificate = RawDer.signedCertificate(tbsDer, outerAlgorithm, signingKey, jdkAlgorithm);
        if (m.contains("signatureFlipped")) {
            certificate[certificate.length - 2] ^= 1;
        }
        if (m.contains("trailingByte")) {
            certificate = java.util.Arrays.copyOf(certificate, certificate.length + 1);
        }
        return certificate;
    }

    /** What may go wrong in one certificate, by name; a case records the names it used. */
    private static final String[] MUTATIONS = {"ku", "ku", "eku", "eku", "eku", "bc", "bc", "san", "san",
            "critical", "privateExtension", "policies", "explicitNotCritical", "duplicateExtension", "emptyExtensions",
            "algorithmNullParams", "sha1", "outerAlgorithmMismatch", "v1", "v1Explicit", "v2", "serial",
            "issuerReencoded", "time", "time", "time", "expired", "notYetValid", "subject", "subject",
            "subjectNotAName", "emptySubject", "spki", "uniqueId", "tbsTrailing", "wrongSigner", "signatureFlipped",
            "trailingByte", "nameConstraints"};

    private static boolean critical(Random r, Set<String> m) {
        return m.contains("critical") ? r.nextBoolean() : r.nextInt(4) == 0;
    }

    private static byte[] keyUsage(Random r, Set<String> m, boolean ca) {
        if (!m.contains("ku")) {
            return ca ? tlv(0x03, new byte[] {0x01, 0x06}) : r.nextBoolean()
                    ? tlv(0x03, new byte[] {0x07, (byte) 0x80}) : tlv(0x03, new byte[] {0x03, (byte) 0x88});
        }
        return switch (r.nextInt(11)) {
            case 0 -> tlv(0x03, new byte[] {0x03, 0x08});                              // keyAgreement only
            case 1 -> concat(tlv(0x03, new byte[] {0x07, (byte) 0x80}), new byte[] {0x05, 0x00}); // trailing bytes
            case 2 -> tlv(0x03, new byte[] {0x08, (byte) 0x80});                       // unused bits > 7
            case 3 -> tlv(0x03, new byte[] {0x07, (byte) 0x81});                       // a set bit among unused ones
            case 4 -> tlv(0x04, new byte[] {0x07, (byte) 0x80});                       // not a BIT STRING
            case 5 -> tlv(0x03, new byte[0]);                                          // empty
            case 6 -> new byte[] {0x03, 0x03, 0x07, (byte) 0x80};                      // truncated
            case 7 -> tlv(0x03, new byte[] {0x00});                                    // no bits at all
            case 8 -> tlv(0x03, new byte[] {0x02, (byte) 0x84});                       // and keyCertSign
            case 9 -> tlv(0x03, new byte[] {0x01, (byte) 0x82});                       // and cRLSign
            default -> tlv(0x03, new byte[] {0x00, (byte) 0x80, 0x00});                // digitalSignature, padded
        };
    }

    private static byte[] extendedKeyUsage(Random r, Set<String> m) throws IOException {
        if (!m.contains("eku")) {
            return switch (r.nextInt(4)) {
                case 0 -> seq(oid(CLIENT_AUTH));
                case 1 -> seq(oid(SERVER_AUTH), oid(CLIENT_AUTH));
                case 2 -> seq(oid(ANY_USAGE));
                default -> seq(oid(SERVER_AUTH));
            };
        }
        return switch (r.nextInt(8)) {
            case 0 -> concat(seq(oid(SERVER_AUTH)), new byte[] {0x05, 0x00});          // serverAuth only, trailing
            case 1 -> concat(seq(oid(CLIENT_AUTH)), new byte[] {0x05, 0x00});          // clientAuth, trailing
            case 2 -> seq();                                                           // empty
            case 3 -> seq(oid(SERVER_AUTH), tlv(0x04, new byte[] {1}));                // not an OID inside
            case 4 -> seq(tlv(0x06, new byte[] {0x2b, 0x06, (byte) 0x81}));            // an unfinished OID
            case 5 -> seq(oid(SERVER_AUTH), new byte[] {0x06, 0x08, 0x2b, 0x06});       // truncated
            case 6 -> tlv(0x31, oid(CLIENT_AUTH));                                     // a SET
            default -> seq(tlv(0x06, new byte[0]));                                    // empty OID
        };
    }

    private static byte[] basicConstraints(Random r, Set<String> m, boolean ca) {
        if (!m.contains("bc")) {
            if (ca) {
                // a path length of 0 or 1 under a sub-CA that has more sub-CAs under it must be refused
                int pathLength = r.nextInt(4) - 1;
                return pathLength < 0 ? seq(bool(true)) : seq(bool(true), integer(BigInteger.valueOf(pathLength)));
            }
            return r.nextBoolean() ? seq() : seq(bool(true), integer(BigInteger.ZERO));
        }
        return switch (r.nextInt(8)) {
            case 0 -> seq(tlv(0x01, new byte[] {0x01}));                               // TRUE not as 0xff
            case 1 -> seq(bool(true), integer(BigInteger.valueOf(-1)));                // negative path length
            case 2 -> concat(seq(bool(true)), new byte[] {0x05, 0x00});                // trailing
            case 3 -> tlv(0x31, bool(true));                                           // a SET
            case 4 -> seq(bool(false));                                                // DEFAULT encoded
            case 5 -> seq(integer(BigInteger.ONE), bool(true));                        // out of order
            case 6 -> new byte[] {0x30, 0x05, 0x01, 0x01, (byte) 0xff};               // truncated
            default -> ca ? seq() : seq(bool(true), integer(BigInteger.ZERO));         // CA without cA, or device CA
        };
    }

    /**
     * Name constraints of a CA, one subtree permitted or excluded, well-formed or not (the JDK takes some malformed
     * ones; the strict checker must refuse those, and never throw).
     */
    private static byte[] nameConstraints(Random r) {
        byte[][] bases = {tlv(0x82, ascii("permitted.example")), tlv(0x82, ascii("example")),
            tlv(0x82, ascii(".permitted.example")), tlv(0x82, ascii("*.example")), tlv(0x82, new byte[0]),
            tlv(0x81, ascii("example.com")), tlv(0x81, ascii(".example.com")), tlv(0x81, ascii("d@example.com")),
            tlv(0x81, ascii("a@b@example.com")), tlv(0x87, new byte[] {10, 0, 0, 0, -1, 0, 0, 0}),
            tlv(0x87, new byte[] {10, 0, 0, 1}), tlv(0x87, new byte[] {10, 0, 0, 0, 0, -1, 0, 0}),
            tlv(0x88, new byte[] {0x2b, 0x06, 0x01}), tlv(0x86, ascii("example.com"))};
        byte[] subtree = seq(bases[r.nextInt(bases.length)]);
        return seq(tlv(r.nextBoolean() ? 0xa0 : 0xa1, subtree));
    }

    private static byte[] subjectAltName(Random r, Set<String> m) {
        if (!m.contains("san")) {
            return r.nextBoolean() ? seq(tlv(0x82, ascii("device.example"))) : seq(tlv(0x81, ascii("d@example.com")));
        }
        if (r.nextBoolean()) {
            // names whose syntax the JDK's parse judges: the fast path must leave the odd ones to it
            String[] names = {"1dev.example", "-dev.example", "dev-.example", "a..example", "*.example",
                    "dev_1.example", ".example", "example.", "dev.exa mple", "xn--bcher-kva.example",
                    "a".repeat(64) + ".example", "d@", "@example.com", "urn:uuid:1234", "http://[::1]/",
                    "a@b@example.com", "*.permitted.example", "d.permitted.example"};
            int tag = r.nextInt(3) == 0 ? 0x81 : r.nextInt(4) == 0 ? 0x86 : 0x82;
            return seq(tlv(tag, ascii(names[r.nextInt(names.length)])));
        }
        return switch (r.nextInt(7)) {
            case 0 -> seq();                                                           // empty
            case 1 -> seq(tlv(0x99, ascii("x")));                                      // no such GeneralName
            case 2 -> concat(seq(tlv(0x82, ascii("d.example"))), new byte[] {0x05, 0x00}); // trailing
            case 3 -> new byte[] {0x30, 0x10, (byte) 0x82, 0x02, 'd', '.'};            // truncated
            case 4 -> seq(tlv(0x82, new byte[0]));                                     // empty dNSName
            case 5 -> tlv(0x04, ascii("device.example"));                              // not a SEQUENCE
            default -> seq(tlv(0x87, new byte[] {127, 0, 0}));                         // a 3-byte IP address
        };
    }

    private static byte[] validity(Random r, Set<String> m) {
        ZonedDateTime now = Instant.ofEpochMilli(NOW).atZone(ZoneOffset.UTC);
        ZonedDateTime notBefore = now.minusHours(1 + r.nextInt(1000));
        ZonedDateTime notAfter = now.plusHours(1 + r.nextInt(10000));
        if (m.contains("expired")) {
            notAfter = now.minusMinutes(1 + r.nextInt(1000));
        }
        if (m.contains("notYetValid")) {
            notBefore = now.plusMinutes(1 + r.nextInt(1000));
        }
        byte[] before = time(notBefore);
        byte[] after = r.nextInt(10) == 0 ? tlv(0x18, ascii("20620101000000Z")) : time(notAfter);
        if (m.contains("time")) {
            byte[] bad = badTime(r, r.nextBoolean() ? notBefore : notAfter);
            if (r.nextBoolean()) {
                before = bad;
            } else {
                after = bad;
            }
        }
        return seq(before, after);
    }

    private static byte[] time(ZonedDateTime t) {
        return tlv(0x17, ascii(DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'", Locale.ROOT).format(t)));
    }

    private static byte[] badTime(Random r, ZonedDateTime t) {
        return switch (r.nextInt(8)) {
            case 0 -> tlv(0x17, ascii(DateTimeFormatter.ofPattern("yyMMddHHmmss",
                    Locale.ROOT).format(t)));          // no Z
            case 1 -> tlv(0x17, ascii(DateTimeFormatter.ofPattern("yyMMddHHmmss'+0000'",
                    Locale.ROOT).format(t)));   // offset
            case 2 -> tlv(0x17, ascii(DateTimeFormatter.ofPattern("yyMMdd'240000Z'",
                    Locale.ROOT).format(t)));       // hour 24
            case 3 -> tlv(0x18, ascii(DateTimeFormatter.ofPattern("yyyyMMddHHmmss'Z'",
                    Locale.ROOT).format(t)));     // before 2050
            case 4 -> tlv(0x18, ascii(DateTimeFormatter.ofPattern("yyyyMMddHHmmss'.5Z'",
                    Locale.ROOT).format(t)));   // fraction
            case 5 -> tlv(0x17, ascii(DateTimeFormatter.ofPattern("yyMMddHHmm'Z'",
                    Locale.ROOT).format(t)));         // no seconds
            case 6 -> tlv(0x17, ascii(DateTimeFormatter.ofPattern("yyMM'30'HHmmss'Z'", Locale.ROOT).format(t)
                    .replaceFirst("^(..)..", "$102")));                                                // 30 February
            default -> tlv(0x17, ascii(DateTimeFormatter.ofPattern("yyMMddHHmm'60Z'",
                    Locale.ROOT).format(t)));      // second 60
        };
    }

    private static byte[] serial(Random r, Set<String> m) {
        if (!m.contains("serial")) {
            // up to 20 octets of value, DER's sign byte making some 21
            return integer(new BigInteger(64 + r.nextInt(97), r).add(BigInteger.ONE));
        }
        return switch (r.nextInt(5)) {
            case 0 -> integer(BigInteger.ZERO);
            case 4 -> integer(BigInteger.ONE.shiftLeft(160).add(BigInteger.valueOf(r.nextInt(1000))));  // 21 octets
            case 1 -> integer(BigInteger.valueOf(-5 - r.nextInt(1000)));
            case 2 -> tlv(0x02, new byte[] {0x00, 0x12, 0x34});                        // not minimal
            default -> tlv(0x02, new byte[0]);                                         // empty
        };
    }

    private static byte[] subject(Random r, Set<String> m) throws IOException {
        if (m.contains("emptySubject")) {
            return seq();
        }
        if (m.contains("subjectNotAName")) {
            return switch (r.nextInt(4)) {
                case 0 -> tlv(0x0c, ascii("device"));
                case 1 -> seq(seq(oid("2.5.4.3"), tlv(0x0c, ascii("device"))));         // no SET
                case 2 -> seq(tlv(0x31, oid("2.5.4.3")));                             // no attribute SEQUENCE
                default -> seq(tlv(0x31, new byte[0]));                               // empty RDN
            };
        }
        String cn = "dev-" + Long.toHexString(r.nextLong() >>> 20);
        if (!m.contains("subject")) {
            return name(List.of(rdn("2.5.4.10", 0x0c, "Acme"), rdn("2.5.4.3", 0x0c, cn)));
        }
        return switch (r.nextInt(8)) {
            case 0 -> name(List.of(rdn("2.5.4.3", 0x13, cn)));                                    // Printable
            case 1 -> name(List.of(rdn("2.5.4.3", 0x16, cn)));                                    // IA5
            case 2 -> name(List.of(tlv(0x31, seq(oid("2.5.4.3"), tlv(0x1e, cn.getBytes(StandardCharsets.UTF_16BE))))));
            case 3 -> name(List.of(rdn("2.5.4.3", 0x14, cn)));                                    // Teletex
            case 4 -> name(List.of(rdn("2.5.4.3", 0x0c, cn), rdn("2.5.4.3", 0x0c, cn + "x")));   // two CNs
            case 5 -> name(List.of(tlv(0x31, seq(oid("2.5.4.3"), tlv(0x0c, ascii(cn))),
                    seq(oid("2.5.4.10"), tlv(0x0c, ascii("Acme"))))));                            // multi-valued
            case 6 -> name(List.of(tlv(0x31, seq(oid("2.5.4.3"), tlv(0x04, ascii(cn))))));        // not a string
            default -> name(List.of(rdn("2.5.4.3", 0x13, "dev*" + cn)));                          // bad Printable
        };
    }

    private static byte[] publicKeyInfo(KeyPair key, Set<String> m) {
        byte[] spki = key.getPublic().getEncoded();
        if (!m.contains("spki")) {
            return spki;
        }
        byte[] copy = spki.clone();
        copy[copy.length - 1] ^= 0x55;                      // a point off the curve (most likely)
        return copy;
    }

    /** The same name with every UTF8String re-encoded as PrintableString: equal to X.500 comparison, not bytewise. */
    private static byte[] reencoded(byte[] name) {
        byte[] copy = name.clone();
        for (int i = 5; i < copy.length; i++) {
            // 06 03 55 04 xx 0c: an attribute of type 2.5.4.xx whose value is a UTF8String
            if (copy[i] == 0x0c && copy[i - 5] == 0x06 && copy[i - 4] == 0x03 && copy[i - 3] == 0x55
                    && copy[i - 2] == 0x04) {
                copy[i] = 0x13;
            }
        }
        return copy;
    }

    private static byte[] rewrapNotCritical(byte[] extension) {
        // SEQUENCE { OID, [BOOLEAN], OCTET STRING } -> SEQUENCE { OID, BOOLEAN FALSE, OCTET STRING }
        int at = 2 + (extension[1] < 0 ? extension[1] & 0x7f : 0);
        int oidEnd = at + 2 + extension[at + 1];
        byte[] oidDer = java.util.Arrays.copyOfRange(extension, at, oidEnd);
        int rest = oidEnd;
        if (extension[rest] == 0x01) {
            rest += 3;
        }
        byte[] value = java.util.Arrays.copyOfRange(extension, rest, extension.length);
        return seq(oidDer, bool(false), value);
    }
}
