package io.mqttgw.auth.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.AuthResult.Decision;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ResponseContractTest {
    @Test
    void allowsWithAttributesWrittenAsText() {
        ServiceAnswer a = interpret(200, "{\"allow\":true,\"attributes\":{\"tenant\":\"acme\","
                + "\"acl.publish\":[\"fleet/acme/#\",\"devices/{client-id}/#\"],\"quota\":50,\"vip\":false,"
                + "\"none\":null}}", null);
        assertEquals(Decision.ALLOW, a.result().decision());
        assertEquals(Map.of("tenant", "acme", "acl.publish", "fleet/acme/#,devices/{client-id}/#", "quota", "50",
                "vip", "false"), a.result().attributes());
        assertEquals(ServiceAnswer.DEFAULT_TTL, a.maxAgeNanos());
    }

    @Test
    void refusesWithTheReasonGiven() {
        assertEquals(Decision.BAD_CREDENTIALS, interpret(200,
                "{\"allow\":false,\"reason\":\"bad_credentials\"}", null).result().decision());
        assertEquals(Decision.NOT_AUTHORIZED, interpret(200,
                "{\"allow\":false,\"reason\":\"not_authorized\"}", null).result().decision());
        assertEquals(Decision.NOT_AUTHORIZED, interpret(200, "{\"allow\":false}", null)
                .result().decision());
    }

    @Test
    void readsStatus401And403AsRefusalsWhateverTheBody() {
        assertEquals(Decision.BAD_CREDENTIALS, interpret(401, "<html>", null).result().decision());
        assertEquals(Decision.NOT_AUTHORIZED, interpret(403, "", null).result().decision());
    }

    @Test
    void treatsOtherStatusesAndBodiesAsFailedCalls() {
        assertEquals("bad_status", assertThrows(AuthServiceException.class,
                () -> interpret(500, "{\"allow\":true}", null)).outcome());
        assertEquals("bad_status", assertThrows(AuthServiceException.class,
                () -> interpret(302, "", null)).outcome());
        for (String body : List.of("", "allow", "{\"allow\":\"yes\"}", "[true]", "{\"allow\":true,\"attributes\":[]}",
                "{\"allow\":true} x", "{\"allow\":true,\"attributes\":{\"a\":{\"b\":1}}}")) {
            assertEquals("bad_response", assertThrows(AuthServiceException.class,
                    () -> interpret(200, body, null), body).outcome(), body);
        }
    }

    @Test
    void honoursCacheControl() {
        assertEquals(TimeUnit.SECONDS.toNanos(120), ResponseContract.maxAgeNanos("public, max-age=120"));
        assertEquals(0, ResponseContract.maxAgeNanos("max-age=0"));
        assertEquals(0, ResponseContract.maxAgeNanos("no-store"));
        assertEquals(0, ResponseContract.maxAgeNanos("max-age=60, no-cache"));
        assertEquals(0, ResponseContract.maxAgeNanos("max-age=soon"));
        assertEquals(ServiceAnswer.DEFAULT_TTL, ResponseContract.maxAgeNanos("private"));
        assertEquals(ServiceAnswer.DEFAULT_TTL, ResponseContract.maxAgeNanos(null));
    }

    @Test
    void readsJsonEscapesInAttributes() {
        assertEquals(Map.of("a", "x\"\\/\n\u00e9\ud83d\ude00"), interpret(200,
                "{\"allow\":true,\"attributes\":{\"a\":\"x\\\"\\\\\\/\\n\\u00e9\\ud83d\\ude00\"}}", null)
                .result().attributes());
        assertEquals(Map.of("n", "1.5,-2,true,false,,x"), interpret(200, " {\"allow\":true,\"attributes\":"
                + "{\"n\":[1.5, -2e0, true, false, null, [], [\"x\"]]}} ", null).result().attributes());
    }

    @Test
    void rejectsBrokenDocumentsAsBadResponses() {
        for (String bad : List.of("{", "{\"a\" 1}", "{\"a\":1,}", "\"abc", "nul", "[1 2]", "{\"a\":\"\u0001\"}",
                "{\"allow\":true,\"x\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}", "{\"allow\":true} {}",
                "{\"allow\":true,\"attributes\":{\"a\":\"\\x\"}}", "  ")) {
            AuthServiceException e = assertThrows(AuthServiceException.class, () -> interpret(200, bad, null), bad);
            assertEquals("bad_response", e.outcome(), bad);
            assertTrue(e.getMessage().startsWith("the auth service's answer is not JSON"), e.getMessage());
        }
    }

    @Test
    void checksTheWholeDocumentAlsoWhereTheContractLooksNoFurther() {
        assertEquals("bad_response", assertThrows(AuthServiceException.class, () -> interpret(200,
                "{\"allow\":false,\"extra\":{\"a\":[1,}}", null)).outcome(), "a broken member the contract ignores");
        assertEquals(Decision.NOT_AUTHORIZED, interpret(200, "{\"allow\":false,\"attributes\":{\"a\":{}}}", null)
                .result().decision(), "a refusal's attributes are not looked at");
        assertEquals("bad_response", assertThrows(AuthServiceException.class, () -> interpret(200,
                "{\"allow\":{\"allow\":true}}", null)).outcome(), "a nested member is not the answer's");
        assertEquals(Decision.NOT_AUTHORIZED, interpret(200, "{\"reason\":{\"reason\":\"bad_credentials\"},"
                + "\"allow\":false}", null).result().decision());
        assertEquals(Decision.ALLOW, interpret(200, "{\"allow\":true,\"meta\":{\"v\":[1,{\"allow\":false}]}}", null)
                .result().decision(), "members the contract ignores are skipped whole");
        assertEquals(Map.of("a", "2"), interpret(200, "{\"allow\":false,\"allow\":true,\"attributes\":{\"a\":{}},"
                + "\"attributes\":{\"a\":1,\"a\":2}}", null).result().attributes(), "a repeated member counts last");
    }

    /** Jackson is stricter than the hand-written reader it replaced about numbers and bytes that are not UTF-8. */
    @Test
    void refusesNumbersWithLeadingZerosOrBareDotsAndBodiesThatAreNotUtf8() {
        for (String bad : List.of("{\"allow\":true,\"attributes\":{\"q\":01}}",
                "{\"allow\":true,\"attributes\":{\"q\":1.}}")) {
            assertEquals("bad_response", assertThrows(AuthServiceException.class, () -> interpret(200, bad, null))
                    .outcome(), bad);
        }
        byte[] latin1 = "{\"allow\":true,\"attributes\":{\"a\":\"\u00e9\"}}".getBytes(StandardCharsets.ISO_8859_1);
        assertEquals("bad_response", assertThrows(AuthServiceException.class,
                () -> ResponseContract.interpret(200, latin1, null)).outcome());
    }

    private static ServiceAnswer interpret(int status, String body, String cacheControl) {
        return ResponseContract.interpret(status, body.getBytes(StandardCharsets.UTF_8), cacheControl);
    }
}
