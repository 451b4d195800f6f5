package io.mqttgw.routing.redis;

import static io.mqttgw.core.config.ValueParsers.bool;
import static io.mqttgw.core.config.ValueParsers.duration;
import static io.mqttgw.core.config.ValueParsers.intRange;
import static io.mqttgw.core.config.ValueParsers.list;
import static io.mqttgw.core.config.ValueParsers.nonEmpty;
import static io.mqttgw.core.config.ValueParsers.oneOf;
import static io.mqttgw.core.config.ValueParsers.string;

import io.mqttgw.core.config.ConfigKey;
import java.time.Duration;
import java.util.List;

/** The keys of {@code routes.provider: redis}. */
public final class RedisConfigKeys {
    private RedisConfigKeys() {
    }

    public static final ConfigKey<String> MODE = new ConfigKey<>("routes.redis.mode", "standalone",
            "standalone, sentinel or cluster", "Redis topology; ignored when routes.redis.config-file is set.",
            oneOf("standalone", "sentinel", "cluster"));
    public static final ConfigKey<List<String>> ADDRESS = new ConfigKey<>("routes.redis.address",
            "redis://127.0.0.1:6379", "comma-separated redis://host:port or rediss://host:port (TLS); host:port "
            + "means redis://", "The server (standalone), the sentinels (sentinel) or seed nodes (cluster).",
            s -> {
                List<String> v = list().apply(s);
                if (v.isEmpty()) {
                    throw new IllegalArgumentException("empty");
                }
                return v.stream().map(RedisConfigKeys::withScheme).toList();
            });
    public static final ConfigKey<String> SENTINEL_MASTER = new ConfigKey<>("routes.redis.sentinel-master", "",
            "the master name the sentinels monitor", "Master name; required with routes.redis.mode sentinel.",
            string());
    public static final ConfigKey<Integer> DATABASE = new ConfigKey<>("routes.redis.database", "0",
            "0 to 1023 (cluster: 0 only)", "Logical database (SELECT) in standalone and sentinel mode.",
            intRange(0, 1023));
    public static final ConfigKey<String> USERNAME = new ConfigKey<>("routes.redis.username", "",
            "an ACL user name; empty means none", "User for AUTH (Redis 6 ACL).", string());
    public static final ConfigKey<String> PASSWORD = new ConfigKey<>("routes.redis.password", "",
            "text; empty means no AUTH", "Password for AUTH; prefer the environment variable "
            + "MQTTGW_ROUTES_REDIS_PASSWORD to the file.", string());
    public static final ConfigKey<String> CONFIG_FILE = new ConfigKey<>("routes.redis.config-file", "",
            "path to a Redisson YAML configuration; empty means built from the keys above",
            "A full Redisson configuration (any topology, TLS, pools); replaces mode, address, sentinel-master, "
                    + "database, username and password.", string());
    public static final ConfigKey<String> KEY_PREFIX = new ConfigKey<>("routes.redis.key-prefix", "mqttgw",
            "letters, digits, '.', '_', '-' and ':'", "Prefix of every key and channel the route table uses.",
            s -> {
                String v = nonEmpty().apply(s);
                if (!v.matches("[A-Za-z0-9._:-]+")) {
                    throw new IllegalArgumentException("has characters other than letters, digits, . _ - :");
                }
                return v;
            });
    public static final ConfigKey<Integer> QUEUE_CAPACITY = new ConfigKey<>("routes.redis.queue-capacity",
            "262144", "1024 to 16777216",
            "Route writes and deletes waiting for the flusher; when full, a new one is dropped and counted, "
                    + "/health says DEGRADED and this node's routes are resynchronised once Redis keeps up.",
            intRange(1024, 1 << 24));
    public static final ConfigKey<Integer> BATCH_SIZE = new ConfigKey<>("routes.redis.batch-size", "1000",
            "1 to 100000, at most routes.redis.queue-capacity",
            "Most devices in one pipeline (each device costs two commands).", intRange(1, 100_000));
    public static final ConfigKey<Duration> FLUSH_INTERVAL = new ConfigKey<>("routes.redis.flush-interval", "10ms",
            "1ms to 10s", "Longest a queued operation waits for its batch to fill before it is sent.",
            duration(Duration.ofMillis(1), Duration.ofSeconds(10)));
    public static final ConfigKey<Duration> TIMEOUT = new ConfigKey<>("routes.redis.timeout", "3s", "100ms to 1m",
            "Response timeout of one pipeline or command; then it counts as failed and is retried.",
            duration(Duration.ofMillis(100), Duration.ofMinutes(1)));
    public static final ConfigKey<Duration> CONNECT_TIMEOUT = new ConfigKey<>("routes.redis.connect-timeout", "2s",
            "100ms to 1m", "Timeout of one connection attempt to a Redis server.",
            duration(Duration.ofMillis(100), Duration.ofMinutes(1)));
    public static final ConfigKey<Duration> RETRY_MIN_DELAY = new ConfigKey<>("routes.redis.retry-min-delay",
            "100ms", "1ms to 1m", "Backoff after the first failed pipeline; each retry doubles the bound, a full "
            + "jitter picks the delay below it.", duration(Duration.ofMillis(1), Duration.ofMinutes(1)));
    public static final ConfigKey<Duration> RETRY_MAX_DELAY = new ConfigKey<>("routes.redis.retry-max-delay", "5s",
            "1ms to 10m, at least routes.redis.retry-min-delay", "Upper bound of the retry backoff.",
            duration(Duration.ofMillis(1), Duration.ofMinutes(10)));
    public static final ConfigKey<Duration> HEARTBEAT_INTERVAL = new ConfigKey<>("routes.redis.heartbeat-interval",
            "5s", "100ms to 5m", "How often the node refreshes its heartbeat key and looks for dead nodes.",
            duration(Duration.ofMillis(100), Duration.ofMinutes(5)));
    public static final ConfigKey<Duration> NODE_TTL = new ConfigKey<>("routes.redis.node-ttl", "30s",
            "1s to 1h, at least three heartbeat intervals",
            "Time to live of the heartbeat key. A node is dead, and its routes are removed, once its key is gone "
                    + "and another node has watched its heartbeat not advance for this long while Redis answered.",
            duration(Duration.ofSeconds(1), Duration.ofHours(1)));
    public static final ConfigKey<Boolean> DEAD_NODE_CLEANUP = new ConfigKey<>("routes.redis.dead-node-cleanup",
            "true", "true or false", "Remove the routes of dead nodes (one live node does it, under a lock).",
            bool());
    public static final ConfigKey<Integer> IO_THREADS = new ConfigKey<>("routes.redis.io-threads", "2",
            "1 to 64", "Event-loop threads of the Redis client (its own group, apart from the device event loops).",
            intRange(1, 64));

    public static final ConfigKey<Integer> FORWARD_MAX_IN_FLIGHT = new ConfigKey<>(
            "routes.redis.forward-max-in-flight", "1000", "1 to 100000",
            "Operator operations (downlink, kick) forwarded through Redis to the node that holds the device: most "
                    + "this node waits for, and most it runs for other nodes; past either, the request is answered "
                    + "503 busy. Kafka downlink records handed to the node their device moved to take at most half "
                    + "of this node's share.", intRange(1, 100_000));

    public static final ConfigKey<Duration> WILL_POLL_INTERVAL = new ConfigKey<>("routes.redis.will-poll-interval",
            "1s", "10ms to 1m", "(session.provider: redis) How often each node looks for delayed wills that fell due "
            + "and claims them: the most a will is published late.",
            duration(Duration.ofMillis(10), Duration.ofMinutes(1)));
    public static final ConfigKey<Integer> WILL_POLL_BATCH = new ConfigKey<>("routes.redis.will-poll-batch", "256",
            "1 to 100000", "(session.provider: redis) Due delayed wills one poll claims at most; the rest wait for "
            + "the next poll.", intRange(1, 100_000));

    public static final List<ConfigKey<?>> ALL = List.of(MODE, ADDRESS, SENTINEL_MASTER, DATABASE, USERNAME,
            PASSWORD, CONFIG_FILE, KEY_PREFIX, QUEUE_CAPACITY, BATCH_SIZE, FLUSH_INTERVAL, TIMEOUT, CONNECT_TIMEOUT,
            RETRY_MIN_DELAY, RETRY_MAX_DELAY, HEARTBEAT_INTERVAL, NODE_TTL, DEAD_NODE_CLEANUP, IO_THREADS,
            FORWARD_MAX_IN_FLIGHT, WILL_POLL_INTERVAL, WILL_POLL_BATCH);

    private static String withScheme(String address) {
        if (address.startsWith("redis://") || address.startsWith("rediss://")) {
            return address;
        }
        if (address.contains("://")) {
            throw new IllegalArgumentException("scheme is not redis:// or rediss://");
        }
        return "redis://" + address;
    }
}
