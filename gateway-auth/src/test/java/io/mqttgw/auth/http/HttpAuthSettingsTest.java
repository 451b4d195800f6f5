package io.mqttgw.auth.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HttpAuthSettingsTest {
    @TempDir
    Path dir;

    private HttpAuthSettings settings(String yaml) {
        return TestSettings.from(dir, yaml);
    }

    private String error(String yaml) {
        return assertThrows(ConfigException.class, () -> settings(yaml)).getMessage();
    }

    @Test
    void hasStormReadyDefaults() {
        HttpAuthSettings s = settings("auth.http.url: http://auth.local/check\n");
        assertEquals(1000, s.maxConnections());
        assertEquals(1000, s.maxInFlight());
        assertEquals(FailurePolicy.REFUSE, s.onFailure());
        assertEquals(Duration.ofSeconds(3), s.requestTimeout());
        assertEquals(Duration.ofSeconds(5), s.authTimeout());
        assertEquals("POST", s.template().method());
        assertNull(s.pins());
        assertNull(s.caFile());
        assertTrue(s.ioThreads() >= 1 && s.ioThreads() <= 4);
    }

    @Test
    void takesHeadersFromTheOpenPrefix() {
        HttpAuthSettings s = settings("auth:\n  http:\n    url: http://auth.local/check\n    method: get\n"
                + "    headers:\n      Authorization: Bearer abc\n      X-Gateway: gw-1\n");
        assertEquals(Map.of("Authorization", "Bearer abc", "X-Gateway", "gw-1"), s.template().headers());
        assertEquals("GET", s.template().method());
    }

    @Test
    void requiresTheUrl() {
        assertTrue(error("auth.http.method: GET\n").startsWith("auth.http.url is required"));
    }

    @Test
    void namesABadUrlTemplate() {
        String e = error("auth.http.url: http://auth.local/{serial}\n");
        assertTrue(e.startsWith("auth.http.url = 'http://auth.local/{serial}'") && e.contains("{serial}"), e);
    }

    @Test
    void wantsTheRequestTimeoutBelowTheAuthTimeout() {
        String e = error("auth.http.url: http://a/\nauth.timeout: 2s\nauth.http.request-timeout: 2s\n");
        assertTrue(e.startsWith("auth.http.request-timeout = '") && e.contains("is not below auth.timeout"), e);
    }

    @Test
    void wantsNoMoreCallsInFlightThanConnections() {
        String e = error("auth.http.url: http://a/\nauth.http.max-connections: 100\n");
        assertTrue(e.startsWith("auth.http.max-in-flight = '1000'") && e.contains("auth.http.max-connections"), e);
    }

    @Test
    void readsThePinsFileAndNamesItsBadLine() throws Exception {
        Files.writeString(dir.resolve("pins.txt"), "dev-1 " + "ab".repeat(32) + "\n");
        HttpAuthSettings s = settings("auth.http.url: http://a/\nauth.http.pins-file: pins.txt\n");
        assertEquals("ab".repeat(32), s.pins().pinOf("dev-1"));
        Files.writeString(dir.resolve("bad.txt"), "dev-1\n");
        String e = error("auth.http.url: http://a/\nauth.http.pins-file: bad.txt\n");
        assertTrue(e.startsWith("auth.http.pins-file = 'bad.txt'") && e.contains("line 1"), e);
    }

    @Test
    void refusesAnUnknownPolicy() {
        String e = error("auth.http.url: http://a/\nauth.http.on-failure: allow\n");
        assertTrue(e.contains("allowed: refuse or allow-verified-certificate"), e);
    }
}
