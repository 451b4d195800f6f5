package io.mqttgw.auth.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.AuthRequest;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RequestTemplateTest {
    private static final List<String> ALL_FIELDS = List.of("client-id", "username", "password",
            "certificate-identity", "certificate-fingerprint", "remote-address", "listener");
    private final AuthRequest request = new AuthRequest("dev 1/ä", "bob", "p\"w".getBytes(StandardCharsets.UTF_8),
            "dev 1/ä", null, new InetSocketAddress("127.0.0.1", 40001), "tls");

    @Test
    void replacesUrlPlaceholdersUrlEncoded() {
        RequestTemplate t = RequestTemplate.parse("http://auth:8080/devices/{client-id}/auth?fp={certificate-fingerprint}"
                + "&l={listener}&u={username}", "GET", Map.of(), List.of());
        assertEquals("http://auth:8080/devices/dev%201%2F%C3%A4/auth?fp=abc&l=tls&u=bob", t.url(request, "abc"));
        assertFalse(t.hasBody());
        assertEquals("http://auth:8080/devices/dev%201%2F%C3%A4/auth?fp=&l=tls&u=bob", t.url(request, null));
    }

    @Test
    void writesEveryFieldIntoTheBodyByDefault() {
        RequestTemplate t = RequestTemplate.parse("https://auth/check", "POST", Map.of("X-Key", "k"), ALL_FIELDS);
        assertEquals("{\"clientId\":\"dev 1/ä\",\"username\":\"bob\",\"password\":\"p\\\"w\","
                + "\"certificateIdentity\":\"dev 1/ä\",\"certificateFingerprint\":\"ff\","
                + "\"remoteAddress\":\"127.0.0.1:40001\",\"listener\":\"tls\"}", new String(t.body(request, "ff"),
                        StandardCharsets.UTF_8));
        assertTrue(t.hasBody());
        assertEquals(Map.of("X-Key", "k"), t.headers());
    }

    @Test
    void renamesAndLeavesOutFieldsAsConfigured() {
        RequestTemplate t = RequestTemplate.parse("http://a/", "PUT", Map.of(), List.of("client-id=clientid",
                "certificate-fingerprint=sha256"));
        assertEquals("{\"clientid\":\"dev 1/ä\",\"sha256\":null}", new String(t.body(request, null),
                StandardCharsets.UTF_8));
    }

    @Test
    void refusesUnknownPlaceholdersFieldsAndNonHttpUrls() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RequestTemplate.parse("http://a/{device}",
                "POST", Map.of(), List.of())).getMessage().contains("{device}"));
        assertThrows(IllegalArgumentException.class, () -> RequestTemplate.parse("http://a/{password}", "POST",
                Map.of(), List.of()), "no password in URLs");
        assertThrows(IllegalArgumentException.class, () -> RequestTemplate.parse("http://a/{client-id", "POST",
                Map.of(), List.of()));
        assertThrows(IllegalArgumentException.class, () -> RequestTemplate.parse("ftp://a/", "POST", Map.of(),
                List.of()));
        assertThrows(IllegalArgumentException.class, () -> RequestTemplate.parse("auth/check", "POST", Map.of(),
                List.of()));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RequestTemplate.parse("http://a/", "POST",
                Map.of(), List.of("client-id", "serial"))).getMessage().contains("serial"));
        assertThrows(IllegalArgumentException.class, () -> RequestTemplate.parse("http://a/", "POST", Map.of(),
                List.of("client-id=x", "username=x")));
    }

    private static String urlFor(String template, String clientId) {
        return RequestTemplate.parse(template, "GET", Map.of(), List.of()).url(new AuthRequest(clientId, null, null,
                null, null, null, "tcp"), null);
    }

    @Test
    void hostileClientIdsStayOneSegmentOfThePath() {
        String t = "http://auth/devices/{client-id}/auth";
        assertEquals("http://auth/devices/%2E%2E/auth", urlFor(t, ".."));
        assertEquals("http://auth/devices/%2E/auth", urlFor(t, "."));
        assertEquals("http://auth/devices/a%2F%2E%2E%2Fadmin/auth", urlFor(t, "a/../admin"));
        assertEquals("http://auth/devices/%252e%252e/auth", urlFor(t, "%2e%2e"));
        assertEquals("http://auth/devices/%3Fx%3D1/auth", urlFor(t, "?x=1"));
        assertEquals("http://auth/devices/%23frag/auth", urlFor(t, "#frag"));
        assertEquals("http://auth/devices/a%20b%2Bc/auth", urlFor(t, "a b+c"));
        assertEquals("http://auth/devices/%C3%A4%E2%82%AC%F0%9F%98%80/auth", urlFor(t, "\u00e4\u20ac\ud83d\ude00"));
        assertEquals("http://auth/devices/a%0D%0AHost%3A%20evil/auth", urlFor(t, "a\r\nHost: evil"));
        assertEquals("http://auth/devices/%5C%2E%2E%5C/auth", urlFor(t, "\\..\\"));
        assertEquals("http://auth/devices/%3B%2E%2E/auth", urlFor(t, ";.."));
    }

    @Test
    void twoPlaceholdersSideBySideCannotFormADotDotSegment() {
        RequestTemplate t = RequestTemplate.parse("http://auth/d/{client-id}{username}/auth", "GET", Map.of(),
                List.of());
        assertEquals("http://auth/d/%2E%2E/auth", t.url(new AuthRequest(".", ".", null, null, null, null, "tcp"),
                null));
    }

    @Test
    void encodesQueryValuesSoTheyCannotAddParameters() {
        String t = "http://auth/check?id={client-id}&l={listener}";
        assertEquals("http://auth/check?id=..&l=tcp", urlFor(t, ".."));
        assertEquals("http://auth/check?id=a%26admin%3Dtrue%23x&l=tcp", urlFor(t, "a&admin=true#x"));
        assertEquals("http://auth/check?id=a%2Bb%20c%0A&l=tcp", urlFor(t, "a+b c\n"));
    }

    @Test
    void refusesPlaceholdersInTheHostOrFragment() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RequestTemplate.parse(
                "http://{client-id}.auth/check", "GET", Map.of(), List.of())).getMessage().contains("host"));
        assertThrows(IllegalArgumentException.class, () -> RequestTemplate.parse("http://auth{client-id}/check",
                "GET", Map.of(), List.of()));
        assertThrows(IllegalArgumentException.class, () -> RequestTemplate.parse("http://auth/check#{client-id}",
                "GET", Map.of(), List.of()));
        assertEquals("http://auth?id=x", urlFor("http://auth?id={client-id}", "x"));
    }

    @Test
    void escapesQuotesBackslashesAndControlCharactersInTheBody() {
        RequestTemplate t = RequestTemplate.parse("http://a/", "POST", Map.of(), List.of("username=u\"\\"));
        AuthRequest r = new AuthRequest("c", "q\"b\\n\n\u0001\u00e9", null, null, null, null, "tcp");
        assertEquals("{\"u\\\"\\\\\":\"q\\\"b\\\\n\\n\\u0001\u00e9\"}",
                new String(t.body(r, null), StandardCharsets.UTF_8));
    }
}
