package io.mqttgw.auth.http;

import static io.mqttgw.core.config.ValueParsers.duration;
import static io.mqttgw.core.config.ValueParsers.intRange;
import static io.mqttgw.core.config.ValueParsers.list;
import static io.mqttgw.core.config.ValueParsers.nonEmpty;
import static io.mqttgw.core.config.ValueParsers.oneOf;

import io.mqttgw.core.config.ConfigKey;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** The keys of {@code auth.provider: http}; request headers pass through under {@link #HEADERS}. */
public final class HttpAuthConfigKeys {
    private HttpAuthConfigKeys() {
    }

    /** Open prefix: {@code auth.http.headers.Authorization: Bearer ...} adds that header to every call. */
    public static final String HEADERS = "auth.http.headers.";

    public static final ConfigKey<String> URL = new ConfigKey<>("auth.http.url", null,
            "an http or https URL; {client-id}, {username}, {certificate-identity}, {certificate-fingerprint} and "
                    + "{listener} are replaced, URL-encoded",
            "The auth service's endpoint, called once per CONNECT that neither the cache nor a call in flight "
                    + "answers; required with auth.provider http.", nonEmpty());
    public static final ConfigKey<String> METHOD = new ConfigKey<>("auth.http.method", "POST", "POST, PUT or GET",
            "HTTP method; GET sends no body, so the URL must carry what the service needs.",
            s -> oneOf("post", "put", "get").apply(s).toUpperCase(Locale.ROOT));
    public static final ConfigKey<List<String>> BODY_FIELDS = new ConfigKey<>("auth.http.body-fields",
            "client-id,username,password,certificate-identity,certificate-fingerprint,remote-address,listener",
            "comma-separated fields from client-id, username, password, certificate-identity, "
                    + "certificate-fingerprint, remote-address, listener, each optionally renamed as field=jsonName",
            "Members of the JSON request body; by default named clientId, username, password, certificateIdentity, "
                    + "certificateFingerprint, remoteAddress, listener.", list());
    public static final ConfigKey<Duration> CONNECT_TIMEOUT = new ConfigKey<>("auth.http.connect-timeout", "1s",
            "10ms to 1m", "Longest wait for a new TCP connection to the service.",
            duration(Duration.ofMillis(10), Duration.ofMinutes(1)));
    public static final ConfigKey<Duration> REQUEST_TIMEOUT = new ConfigKey<>("auth.http.request-timeout", "3s",
            "10ms to 2m, below auth.timeout",
            "Longest wait for one answer; then the call counts as failed and auth.http.on-failure decides.",
            duration(Duration.ofMillis(10), Duration.ofMinutes(2)));
    public static final ConfigKey<Duration> IDLE_TIMEOUT = new ConfigKey<>("auth.http.idle-timeout", "20s",
            "1s to 1h", "A kept-alive connection idle this long is closed; keep it below the service's own.",
            duration(Duration.ofSeconds(1), Duration.ofHours(1)));
    public static final ConfigKey<Integer> MAX_CONNECTIONS = new ConfigKey<>("auth.http.max-connections", "1000",
            "1 to 100000", "Connections kept to the service (the client's maxConnectionsPerHost).",
            intRange(1, 100_000));
    public static final ConfigKey<Integer> MAX_IN_FLIGHT = new ConfigKey<>("auth.http.max-in-flight", "1000",
            "1 to 100000, at most auth.http.max-connections",
            "Calls to the service at once; more wait in a queue.", intRange(1, 100_000));
    public static final ConfigKey<Integer> MAX_QUEUED = new ConfigKey<>("auth.http.max-queued", "20000",
            "0 to 10000000",
            "Calls waiting for a free slot; past it, and for a call that waited longer than auth.timeout, "
                    + "auth.http.on-failure decides at once.", intRange(0, 10_000_000));
    public static final ConfigKey<Integer> IO_THREADS = new ConfigKey<>("auth.http.io-threads", "0",
            "0 to 64; 0 means one per core up to 4", "Event-loop threads of the HTTP client (its own, not the "
                    + "device loops).", intRange(0, 64));
    public static final ConfigKey<String> CA_FILE = new ConfigKey<>("auth.http.ca-file", null,
            "path to a PEM bundle of CA certificates",
            "CAs that an https service's certificate must chain to; empty means the JDK's default trust store.",
            nonEmpty());
    public static final ConfigKey<String> ON_FAILURE = new ConfigKey<>("auth.http.on-failure", "refuse",
            "refuse or allow-verified-certificate",
            "When the service fails, times out, is cut off by the breaker or the queue is full: refuse with "
                    + "CONNACK server unavailable, or allow devices whose certificate verified (with the configured "
                    + "ACL).", oneOf("refuse", "allow-verified-certificate"));
    public static final ConfigKey<Integer> CACHE_MAX_ENTRIES = new ConfigKey<>("auth.http.cache.max-entries",
            "100000", "0 to 100000000; 0 turns the cache off",
            "Answers remembered (a Caffeine cache); beyond it, those least likely to be asked again go first.",
                    intRange(0, 100_000_000));
    public static final ConfigKey<Duration> CACHE_ALLOW_TTL = new ConfigKey<>("auth.http.cache.allow-ttl", "5m",
            "0s to 30d; 0s does not remember", "How long an allow is remembered, unless the answer's "
                    + "Cache-Control max-age says otherwise.", duration(Duration.ZERO, Duration.ofDays(30)));
    public static final ConfigKey<Duration> CACHE_DENY_TTL = new ConfigKey<>("auth.http.cache.deny-ttl", "30s",
            "0s to 30d; 0s does not remember", "How long a deny is remembered, unless the answer's Cache-Control "
                    + "max-age says otherwise.", duration(Duration.ZERO, Duration.ofDays(30)));
    public static final ConfigKey<Integer> BREAKER_THRESHOLD = new ConfigKey<>("auth.http.breaker.failure-threshold",
            "20", "1 to 1000000", "Consecutive failed calls that open the circuit breaker; while open, calls "
                    + "are not made and auth.http.on-failure decides.", intRange(1, 1_000_000));
    public static final ConfigKey<Duration> BREAKER_OPEN = new ConfigKey<>("auth.http.breaker.open-duration", "5s",
            "100ms to 10m", "How long the breaker stays open before one probe call; the probe's success closes it.",
            duration(Duration.ofMillis(100), Duration.ofMinutes(10)));
    public static final ConfigKey<String> PINS_FILE = new ConfigKey<>("auth.http.pins-file", null,
            "path to a file of lines CLIENT-ID SHA256-FINGERPRINT (hex, colons allowed; # comments)",
            "Certificate pins: a pinned client id presenting another certificate is refused with not authorized, "
                    + "without a call.", nonEmpty());

    public static final ConfigKey<Integer> IDENTITY_MAX_IN_FLIGHT = new ConfigKey<>(
            "auth.http.identity.max-in-flight", "1", "1 to 1000",
            "Calls of one identity (client id, with its certificate's fingerprint when it has one) queued or awaiting "
                    + "their answer at once; a CONNECT of that identity with other credentials meanwhile is refused "
                    + "with CONNACK server unavailable, without a call and without auth.http.on-failure, so one "
                    + "identity cannot fill auth.http.max-in-flight and auth.http.max-queued.", intRange(1, 1000));
    public static final ConfigKey<Integer> IDENTITY_DENIED_CALLS = new ConfigKey<>(
            "auth.http.identity.denied-calls", "5", "1 to 1000000",
            "Calls of one identity the service may deny within auth.http.identity.deny-window; past it, that "
                    + "identity's CONNECTs the cache cannot answer are refused with CONNACK server unavailable, "
                    + "without a call, until the window ends.", intRange(1, 1_000_000));
    public static final ConfigKey<Duration> IDENTITY_DENY_WINDOW = new ConfigKey<>("auth.http.identity.deny-window",
            "1m", "0s to 1d; 0s turns the hold off",
            "Window, from an identity's first denied call, in which auth.http.identity.denied-calls apply; an "
                    + "allowed call ends it.", duration(Duration.ZERO, Duration.ofDays(1)));
    public static final ConfigKey<Integer> IDENTITY_MAX_TRACKED = new ConfigKey<>("auth.http.identity.max-tracked",
            "100000", "1 to 100000000",
            "Identities whose denied calls are counted; beyond it, those least likely to be seen again go "
                    + "first (and start a fresh window).", intRange(1, 100_000_000));

    public static final List<ConfigKey<?>> ALL = List.of(URL, METHOD, BODY_FIELDS, CONNECT_TIMEOUT, REQUEST_TIMEOUT,
            IDLE_TIMEOUT, MAX_CONNECTIONS, MAX_IN_FLIGHT, MAX_QUEUED, IO_THREADS, CA_FILE, ON_FAILURE,
            CACHE_MAX_ENTRIES, CACHE_ALLOW_TTL, CACHE_DENY_TTL, BREAKER_THRESHOLD, BREAKER_OPEN, PINS_FILE,
            IDENTITY_MAX_IN_FLIGHT, IDENTITY_DENIED_CALLS, IDENTITY_DENY_WINDOW, IDENTITY_MAX_TRACKED);
}
