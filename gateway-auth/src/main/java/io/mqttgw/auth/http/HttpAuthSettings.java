package io.mqttgw.auth.http;

import static io.mqttgw.auth.http.HttpAuthConfigKeys.*;

import io.mqttgw.auth.x509.FingerprintPins;
import io.mqttgw.core.config.ConfigException;
import io.mqttgw.core.config.ConfigValues;
import io.mqttgw.core.config.CoreConfigKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The validated settings of {@code auth.provider: http}.
 *
 * @param authTimeout core's {@code auth.timeout}: the longest any CONNECT waits for its answer
 * @param caFile      CAs for an https service, or null for the JDK's trust store
 * @param pins        certificate pins, or null without a pins file
 * @param identity    the per-identity bounds ({@code auth.http.identity.*})
 */
public record HttpAuthSettings(RequestTemplate template, Duration connectTimeout, Duration requestTimeout,
                               Duration idleTimeout, int maxConnections, int maxInFlight, int maxQueued,
                               int ioThreads, Path caFile, FailurePolicy onFailure, int cacheMaxEntries,
                               Duration allowTtl, Duration denyTtl, int breakerThreshold, Duration breakerOpen,
                               FingerprintPins pins, Duration authTimeout, IdentityLimits identity) {

    /** {@code auth.http.identity.*}: a deny window of zero turns holding off. */
    public record IdentityLimits(int maxInFlight, int deniedCalls, Duration denyWindow, int maxTracked) {
    }

    public static HttpAuthSettings from(ConfigValues v) {
        if (v.find(URL).isEmpty()) {
            throw new ConfigException(URL.name() + " is required while auth.provider is http: set it ("
                    + URL.allowed() + ") as " + URL.environmentVariable() + " or in the file");
        }
        RequestTemplate template;
        try {
            template = RequestTemplate.parse(v.get(URL), v.get(METHOD), v.under(HEADERS), v.get(BODY_FIELDS));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(URL.name() + " = '" + v.get(URL) + "', " + BODY_FIELDS.name() + " = '"
                    + String.join(",", v.get(BODY_FIELDS)) + "': " + e.getMessage() + "; allowed: " + URL.allowed()
                    + "; body fields: " + BODY_FIELDS.allowed());
        }
        Duration authTimeout = v.get(CoreConfigKeys.AUTH_TIMEOUT);
        Duration request = v.get(REQUEST_TIMEOUT);
        if (request.compareTo(authTimeout) >= 0) {
            throw v.invalid(REQUEST_TIMEOUT, "is not below auth.timeout (" + authTimeout.toMillis() + " ms), so "
                    + "auth.http.on-failure could never act on a slow service");
        }
        int maxConnections = v.get(MAX_CONNECTIONS);
        int maxInFlight = v.get(MAX_IN_FLIGHT);
        if (maxInFlight > maxConnections) {
            throw v.invalid(MAX_IN_FLIGHT, "is above " + MAX_CONNECTIONS.name() + " (" + maxConnections + "), "
                    + "which would exhaust the connection pool");
        }
        Path caFile = v.find(CA_FILE).isPresent() ? v.path(CA_FILE) : null;
        if (caFile != null && !Files.isReadable(caFile)) {
            throw v.invalid(CA_FILE, "is not a readable file (" + caFile + ")");
        }
        FingerprintPins pins = null;
        if (v.find(PINS_FILE).isPresent()) {
            try {
                pins = FingerprintPins.read(v.path(PINS_FILE));
            } catch (IllegalArgumentException e) {
                throw v.invalid(PINS_FILE, "cannot be used: " + e.getMessage());
            }
        }
        int io = v.get(IO_THREADS);
        return new HttpAuthSettings(template, v.get(CONNECT_TIMEOUT), request, v.get(IDLE_TIMEOUT), maxConnections,
                maxInFlight, v.get(MAX_QUEUED), io == 0 ? Math.min(4, Runtime.getRuntime().availableProcessors())
                : io, caFile, FailurePolicy.of(v.get(ON_FAILURE)), v.get(CACHE_MAX_ENTRIES), v.get(CACHE_ALLOW_TTL),
                v.get(CACHE_DENY_TTL), v.get(BREAKER_THRESHOLD), v.get(BREAKER_OPEN), pins, authTimeout,
                new IdentityLimits(v.get(IDENTITY_MAX_IN_FLIGHT), v.get(IDENTITY_DENIED_CALLS),
                        v.get(IDENTITY_DENY_WINDOW), v.get(IDENTITY_MAX_TRACKED)));
    }
}
