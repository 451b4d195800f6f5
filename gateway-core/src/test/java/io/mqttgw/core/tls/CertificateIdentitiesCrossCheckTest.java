package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mqttgw.core.testkit.IdentityCertificates;
import io.mqttgw.core.testkit.TestPki;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The identity the gateway reads is the CN that OpenSSL ({@code openssl x509 -nameopt utf8}) and Python's
 * {@code cryptography} ({@code Name.get_attributes_for_oid(NameOID.COMMON_NAME)}) print for the same certificate, for
 * every string type; where the gateway refuses two CNs, both tools see two as well. Needs {@code openssl} and a Python
 * with {@code cryptography} (Debian: python3-cryptography, which {@code .ci/run} installs); skipped without them.
 */
class CertificateIdentitiesCrossCheckTest {
    private static final String PYTHON_READER = String.join("\n",
            "import json, sys",
            "from cryptography import x509",
            "from cryptography.x509.oid import NameOID",
            "out = []",
            "for path in sys.argv[1:]:",
            "    try:",
            "        c = x509.load_der_x509_certificate(open(path, 'rb').read())",
            "        out.append([a.value if isinstance(a.value, str) else repr(a.value)",
            "                    for a in c.subject.get_attributes_for_oid(NameOID.COMMON_NAME)])",
            "    except Exception as e:",
            "        out.append('error: %s: %s' % (type(e).__name__, e))",
            "print(json.dumps(out))");

    @TempDir
    static Path dir;

    private static TestPki pki;

    @BeforeAll
    static void pki() {
        pki = TestPki.create(dir.resolve("pki"));
    }

    @Test
    void readsTheCommonNameOpenSslAndPythonCryptographyRead() throws Exception {
        Assumptions.assumeTrue(works("openssl", "version"),
                "openssl is not installed (apt-get install openssl; .ci/run does): the cross-check is skipped");
        String python = pythonWithCryptography();
        Assumptions.assumeTrue(python != null, "no python3 with the cryptography module (apt-get install "
                + "python3-cryptography; .ci/run does): the cross-check is skipped");

        List<IdentityCertificates.Case> cases = new ArrayList<>();
        List<X509Certificate> certificates = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        for (IdentityCertificates.Case c : IdentityCertificates.CASES) {
            if (c.identity() != null || "ambiguous_identity".equals(c.refusal())) {
                X509Certificate certificate = IdentityCertificates.device(pki.ca(), c.subject()).getCertificate();
                cases.add(c);
                certificates.add(certificate);
                files.add(Files.write(dir.resolve("case-" + files.size() + ".der"), certificate.getEncoded()));
            }
        }
        List<String> command = new ArrayList<>(List.of(python, "-c", PYTHON_READER));
        files.forEach(f -> command.add(f.toString()));
        JsonNode pythonSays = new ObjectMapper().readTree(run(command));
        assertEquals(cases.size(), pythonSays.size());

        for (int i = 0; i < cases.size(); i++) {
            IdentityCertificates.Case c = cases.get(i);
            List<String> openSsl = openSslCommonNames(files.get(i));
            List<String> cryptography = new ArrayList<>();
            pythonSays.get(i).forEach(v -> cryptography.add(v.asText()));
            assertTrue(pythonSays.get(i).isArray(), c + ": " + pythonSays.get(i));
            X509Certificate certificate = certificates.get(i);
            if (c.identity() != null) {
                String gateway = new CertificateIdentities("cn").identityOf(certificate);
                assertEquals(List.of(gateway), openSsl, c + ": OpenSSL");
                assertEquals(List.of(gateway), cryptography, c + ": Python cryptography");
            } else {
                // two CNs for every reader: whichever one the gateway took would be a guess
                assertEquals(2, openSsl.size(), c + ": OpenSSL " + openSsl);
                assertEquals(2, cryptography.size(), c + ": Python cryptography " + cryptography);
                try {
                    new CertificateIdentities("cn").identityOf(certificate);
                    throw new AssertionError(c + " read");
                } catch (CertificateException refused) {
                    assertEquals(TlsFailureReason.AMBIGUOUS_IDENTITY, TlsFailureReason.classify(refused));
                }
            }
        }
    }

    /**
     * The CN values of {@code openssl x509 -subject} with one RDN per line, multi-valued RDNs joined by " + ", strings
     * converted to UTF-8 and nothing escaped (none of the values read here contains " + ").
     */
    private static List<String> openSslCommonNames(Path der) throws IOException, InterruptedException {
        String out = run(List.of("openssl", "x509", "-inform", "DER", "-in", der.toString(), "-noout", "-subject",
                "-nameopt", "utf8,sep_multiline,lname,dump_nostr,dump_der"));
        List<String> names = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (!line.startsWith("    ")) {
                continue;
            }
            for (String attribute : line.substring(4).split(" \\+ ")) {
                if (attribute.startsWith("commonName=")) {
                    names.add(attribute.substring("commonName=".length()));
                }
            }
        }
        return names;
    }

    private static String pythonWithCryptography() {
        for (String python : List.of("python3", "/usr/bin/python3")) {
            if (works(python, "-c", "import cryptography")) {
                return python;
            }
        }
        return null;
    }

    private static boolean works(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), command.get(0) + " did not finish");
        assertEquals(0, p.exitValue(), String.join(" ", command.subList(0, Math.min(3, command.size()))));
        return new String(out, StandardCharsets.UTF_8);
    }
}
