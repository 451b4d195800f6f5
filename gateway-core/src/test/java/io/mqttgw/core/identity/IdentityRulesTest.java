package io.mqttgw.core.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.mqttgw.core.identity.IdentityRules.Violation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdentityRulesTest {

    @Test
    void refusesWildcardsSeparatorDollarPrefixAndEmpty() {
        assertEquals(Violation.WILDCARD, IdentityRules.check("+"));
        assertEquals(Violation.WILDCARD, IdentityRules.check("#"));
        assertEquals(Violation.WILDCARD, IdentityRules.check("dev+1"));
        assertEquals(Violation.LEVEL_SEPARATOR, IdentityRules.check("a/b"));
        assertEquals(Violation.LEVEL_SEPARATOR, IdentityRules.check(".."+"/x"));
        assertEquals(Violation.DOLLAR_PREFIX, IdentityRules.check("$x"));
        assertEquals(Violation.DOLLAR_PREFIX, IdentityRules.check("$SYS"));
        assertEquals(Violation.EMPTY, IdentityRules.check(""));
        assertEquals(Violation.EMPTY, IdentityRules.check(null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\u0000b", "a\nb", "a\rb", "a\tb", "a\u001bb", "a\u007fb", "a\u0085b", "a\u2028b",
        "a\u2029b"})
    void refusesControlCharactersDelAndLineSeparators(String identity) {
        assertEquals(Violation.CONTROL_CHARACTER, IdentityRules.check(identity));
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev-1", "device_00042", "a$b", "..", "urn:dev:42", "Gerät-ü", "auto-test-node-1a2b",
        "spiffe:x.y", "dev 1"})
    void acceptsPlainIdentitiesIncludingAutoAssignedOnes(String identity) {
        assertNull(IdentityRules.check(identity));
    }

    @Test
    void aSessionKeyWithoutCertificateIsNeverAnAcceptableIdentity() {
        String key = IdentityProof.NO_CERTIFICATE.sessionKey("dev-1");
        assertEquals(Violation.LEVEL_SEPARATOR, IdentityRules.check(key),
                "no identity, so no certificate identity, can name a cert-less session");
        assertEquals("dev-1", IdentityProof.CERTIFICATE.sessionKey("dev-1"));
    }
}
