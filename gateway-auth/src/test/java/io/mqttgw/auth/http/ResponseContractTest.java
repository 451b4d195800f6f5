package io.mqttgw.auth.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.AuthResult.Decision;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ResponseContractTest {
    @Test
    void allowsWithAttributesWrittenAsText() {
        ServiceAnswer a = ResponseContract.interpret(200, "{\"allow\":true,\"attributes\":{\"tenant\":\"acme\","
                + "\"acl.publish\":[\"fleet/acme/#\",\"devices/{client-id}/#\"],\"quota\":50,\"vip\":false,"
                + "\"none\":null}}", null);
        assertEquals(Decision.ALLOW, a.result().decision());
        assertEquals(Map.of("tenant", "acme", "acl.publish", "fleet/acme/#,devices/{client-id}/#", "quota", "50",
                "vip", "false"), a.result().attributes());
        assertEquals(ServiceAnswer.DEFAULT_TTL, a.maxAgeNanos());
    }

    @Test
    void refusesWithTheReasonGiven() {
        assertEquals(Decision.BAD_CREDENTIALS, ResponseContract.interpret(200,
                "{\"allow\":false,\"reason\":\"bad_credentials\"}", null).result().decision());
        assertEquals(Decision.NOT_AUTHORIZED, ResponseContract.interpret(200,
                "{\"allow\":false,\"reason\":\"not_authorized\"}", null).result().decision());
        assertEquals(Decision.NOT_AUTHORIZED, ResponseContract.interpret(200, "{\"allow\":false}", null)
                .result().decision());
    }

    @Test
    void readsStatus401And403AsRefusalsWhateverTheBody() {
        assertEquals(Decision.BAD_CREDENTIALS, ResponseContract.interpret(401, "<html>", null).result().decision());
        assertEquals(Decision.NOT_AUTHORIZED, ResponseContract.interpret(403, "", null).result().decision());
    }

    @Test
    void treatsOtherStatusesAndBodiesAsFailedCalls() {
        assertEquals("bad_status", assertThrows(AuthServiceException.class,
                () -> ResponseContract.interpret(500, "{\"allow\":true}", null)).outcome());
        assertEquals("bad_status", assertThrows(AuthServiceException.class,
                () -> ResponseContract.interpret(302, "", null)).outcome());
        for (String body : List.of("", "allow", "{\"allow\":\"yes\"}", "[true]", "{\"allow\":true,\"attributes\":[]}",
                "{\"allow\":true} x", "{\"allow\":true,\"attributes\":{\"a\":{\"b\":1}}}")) {
            assertEquals("bad_response", assertThrows(AuthServiceException.class,
                    () -> ResponseContract.interpret(200, body, null), body).outcome(), body);
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
    void readsJsonEscapesAndRejectsBrokenDocuments() {
        assertEquals(Map.of("a", "x\"\\/\n\u00e9"), Json.parse("{\"a\":\"x\\\"\\\\\\/\\n\\u00e9\"}"));
        assertEquals(List.of(1.5, -2.0, true, false), Json.parse(" [1.5, -2e0, true, false] "));
        for (String bad : List.of("{", "{\"a\" 1}", "{\"a\":1,}", "\"abc", "nul", "[1 2]", "{\"a\":\"\u0001\"}",
                "[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]")) {
            assertThrows(IllegalArgumentException.class, () -> Json.parse(bad), bad);
        }
        StringBuilder sb = new StringBuilder();
        Json.writeString(sb, "q\"b\\n\n\u0001");
        assertEquals("\"q\\\"b\\\\n\\n\\u0001\"", sb.toString());
        assertTrue(Json.parse(sb.toString()).equals("q\"b\\n\n\u0001"));
    }
}
