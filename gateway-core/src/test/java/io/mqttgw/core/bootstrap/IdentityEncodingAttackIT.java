package io.mqttgw.core.bootstrap;

import static io.mqttgw.core.bootstrap.TlsFrontDoorIT.alertReceived;
import static io.mqttgw.core.bootstrap.TlsFrontDoorIT.assertAlert;
import static io.mqttgw.core.bootstrap.TlsFrontDoorIT.awaitCount;
import static io.mqttgw.core.testkit.IdentityCertificates.UTF8_STRING;
import static io.mqttgw.core.testkit.IdentityCertificates.cn;
import static io.mqttgw.core.testkit.IdentityCertificates.name;
import static io.mqttgw.core.testkit.IdentityCertificates.rdn;
import static io.mqttgw.core.testkit.IdentityCertificates.sanUri;
import static io.mqttgw.core.testkit.IdentityCertificates.subjectAltName;
import static io.mqttgw.core.testkit.IdentityCertificates.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.testkit.IdentityCertificates;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import io.mqttgw.core.tls.TlsFailureReason;
import io.netty.channel.Channel;
import io.netty.pkitesting.X509Bundle;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Certificates from the device CA that try to name a device other readers do not see in them, over real TLS: a
 * BMPString whose bytes spell another device's name in ASCII, two CNs, a CN that is not a string, two SAN URIs. The
 * ambiguous and the unreadable ones are refused in the handshake with an alert and a counted reason; the BMPString
 * is read as what it says, so it names a device of its own.
 */
class IdentityEncodingAttackIT {
    private static final String VICTIM_BYTES_AS_BMP = "\u7669\u6374\u696d";

    @TempDir
    Path dir;

    private Gateway start(TestPki pki, String verifier, String engine) {
        return TestGateway.tls(pki, dir).with("listener.tls.verifier", verifier)
                .with("listener.tls.engine", engine).start();
    }

    private static X509Bundle device(TestPki pki, String caseName) {
        return IdentityCertificates.device(pki.ca(), IdentityCertificates.named(caseName).subject());
    }

    @ParameterizedTest(name = "verifier {0}, engine {1}")
    @CsvSource({"lean,openssl", "pkix,openssl", "lean,jdk"})
    void aBmpStringWhoseBytesSpellVictimCannotConnectAsVictim(String verifier, String engine) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        X509Bundle forged = device(pki, "BMPString whose bytes spell victim in ASCII");
        try (Gateway gateway = start(pki, verifier, engine);
             RawMqttConnection victim = RawMqttConnection.tls(pki.clientContext(pki.device("victim")),
                     gateway.tlsPort())) {
            victim.socket().setSoTimeout(30_000);
            assertEquals(0, victim.connect("victim", 60));
            Channel held = gateway.registry().find("victim");
            assertNotNull(held);

            try (RawMqttConnection attacker = RawMqttConnection.tls(pki.clientContext(forged), gateway.tlsPort())) {
                attacker.socket().setSoTimeout(30_000);
                assertEquals(2, attacker.connect("victim", 60), "identifier rejected: the certificate names "
                        + VICTIM_BYTES_AS_BMP + ", not victim");
                assertTrue(attacker.closedWithin(30_000));
            }
            // with no client id the certificate's own identity is taken: what every X.509 reader sees in it
            try (RawMqttConnection attacker = RawMqttConnection.tls(pki.clientContext(forged), gateway.tlsPort())) {
                attacker.socket().setSoTimeout(30_000);
                assertEquals(0, attacker.connect("", 60));
                Channel own = gateway.registry().find(VICTIM_BYTES_AS_BMP);
                assertNotNull(own, "registered under the BMPString's characters");
                own.eventLoop().submit(() -> assertEquals(VICTIM_BYTES_AS_BMP,
                        ConnectionContext.of(own).certificateIdentity())).get(30, TimeUnit.SECONDS);
                assertSame(held, gateway.registry().find("victim"), "the victim was not taken over");
                assertTrue(held.isActive());
            }
        }
    }

    @ParameterizedTest(name = "{0}, verifier {1}, engine {2}")
    @CsvSource({
        "two CNs,                          lean, openssl, ambiguous_identity",
        "two CNs,                          pkix, openssl, ambiguous_identity",
        "two CNs,                          lean, jdk,     ambiguous_identity",
        "two CNs in one multi-valued RDN,  lean, openssl, ambiguous_identity",
        "two CNs in one multi-valued RDN,  pkix, openssl, ambiguous_identity",
        "CN that is an OCTET STRING,       lean, openssl, bad_identity_encoding",
        "CN that is an OCTET STRING,       pkix, openssl, bad_identity_encoding",
        "CN that is an OCTET STRING,       lean, jdk,     bad_identity_encoding",
        "BMPString of odd length,          lean, openssl, bad_identity_encoding",
        "UTF8String with an overlong slash, lean, openssl, bad_identity_encoding"
    })
    void refusesAnAmbiguousOrUnreadableIdentityInTheHandshakeWithACountedReason(String caseName, String verifier,
                                                                                   String engine, String reason)
            throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        try (Gateway gateway = start(pki, verifier, engine)) {
            String alert = alertReceived(pki.clientContext(device(pki, caseName)), gateway.tlsPort());
            assertAlert("bad_certificate", alert, engine);
            awaitCount(gateway, TlsFailureReason.valueOf(reason.toUpperCase(Locale.ROOT)), 1);
            assertNull(gateway.registry().find("victim"));
            assertEquals(0, gateway.registry().size());
            CertificateRevocationIT.connects(pki.clientContext(pki.device("dev-ok")), gateway.tlsPort(), "dev-ok");
        }
    }

    @ParameterizedTest(name = "{0}, verifier {1}")
    @CsvSource({"BMPString, lean", "BMPString, pkix", "UniversalString, lean", "TeletexString of printable ASCII, lean",
        "CN with a serial number in one RDN, lean"})
    void aCorrectlyEncodedCommonNameOfAnyStringTypeConnects(String caseName, String verifier) throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        IdentityCertificates.Case c = IdentityCertificates.named(caseName);
        try (Gateway gateway = start(pki, verifier, "openssl")) {
            CertificateRevocationIT.connects(pki.clientContext(device(pki, caseName)), gateway.tlsPort(),
                    c.identity());
            assertEquals(0.0, gateway.metrics().tlsFailures(TlsFailureReason.BAD_IDENTITY_ENCODING));
        }
    }

    @Test
    void refusesTwoSanUrisWhenTheIdentityIsTheSanUri() throws Exception {
        TestPki pki = TestPki.create(dir.resolve("pki"));
        byte[] subject = name(rdn(cn(UTF8_STRING, utf8("dev-1"))));
        X509Bundle twoUris = IdentityCertificates.device(pki.ca(), subject,
                subjectAltName(sanUri("urn:device:victim"), sanUri("urn:device:attacker")));
        X509Bundle oneUri = IdentityCertificates.device(pki.ca(), subject, subjectAltName(sanUri("urn:device:7")));
        try (Gateway gateway = TestGateway.tls(pki, dir).with("identity.source", "san-uri").start()) {
            String alert = alertReceived(pki.clientContext(twoUris), gateway.tlsPort());
            assertAlert("bad_certificate", alert, "openssl");
            awaitCount(gateway, TlsFailureReason.AMBIGUOUS_IDENTITY, 1);
            CertificateRevocationIT.connects(pki.clientContext(oneUri), gateway.tlsPort(), "urn:device:7");
        }
    }
}
