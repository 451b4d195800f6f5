package io.mqttgw.routing.redis;

import static io.mqttgw.routing.redis.RedisConfigKeys.*;

import io.mqttgw.core.config.ConfigException;
import io.mqttgw.core.config.ConfigValues;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.SentinelServersConfig;
import org.redisson.config.ReadMode;
import org.redisson.config.SingleServerConfig;

/**
 * The validated settings of the Redis route table and the Redisson configuration they make.
 *
 * @param configFile a Redisson YAML file that replaces the topology keys, or null
 */
public record RedisRouteSettings(String mode, List<String> addresses, String sentinelMaster, int database,
                                 String username, String password, Path configFile, String keyPrefix,
                                 int queueCapacity, int batchSize, Duration flushInterval, Duration timeout,
                                 Duration connectTimeout, Duration retryMinDelay, Duration retryMaxDelay,
                                 Duration heartbeatInterval, Duration nodeTtl, boolean deadNodeCleanup,
                                 int ioThreads, int forwardMaxInFlight, Duration willPollInterval,
                                 int willPollBatch) {

    public static RedisRouteSettings from(ConfigValues v) {
        String mode = v.get(MODE);
        String configFileText = v.get(CONFIG_FILE);
        Path configFile = configFileText.isEmpty() ? null : v.path(CONFIG_FILE);
        if (configFile != null && !Files.isReadable(configFile)) {
            throw v.invalid(CONFIG_FILE, "is not a readable file (" + configFile + ")");
        }
        if (configFile == null && "sentinel".equals(mode) && v.get(SENTINEL_MASTER).isEmpty()) {
            throw new ConfigException(SENTINEL_MASTER.name() + " is required while " + MODE.name()
                    + " is sentinel: set it (" + SENTINEL_MASTER.allowed() + ") as "
                    + SENTINEL_MASTER.environmentVariable() + " or in the file");
        }
        if (configFile == null && "cluster".equals(mode) && v.get(DATABASE) != 0) {
            throw v.invalid(DATABASE, "is not 0 while " + MODE.name() + " is cluster (Redis Cluster has one "
                    + "database)");
        }
        int capacity = v.get(QUEUE_CAPACITY);
        int batch = v.get(BATCH_SIZE);
        if (batch > capacity) {
            throw v.invalid(BATCH_SIZE, "is above " + QUEUE_CAPACITY.name() + " (" + capacity + ")");
        }
        Duration min = v.get(RETRY_MIN_DELAY);
        Duration max = v.get(RETRY_MAX_DELAY);
        if (max.compareTo(min) < 0) {
            throw v.invalid(RETRY_MAX_DELAY, "is below " + RETRY_MIN_DELAY.name() + " (" + min.toMillis() + " ms)");
        }
        Duration heartbeat = v.get(HEARTBEAT_INTERVAL);
        Duration ttl = v.get(NODE_TTL);
        if (ttl.compareTo(heartbeat.multipliedBy(3)) < 0) {
            throw v.invalid(NODE_TTL, "is shorter than three times " + HEARTBEAT_INTERVAL.name() + " ("
                    + heartbeat.multipliedBy(3).toMillis() + " ms)");
        }
        return new RedisRouteSettings(mode, v.get(ADDRESS), v.get(SENTINEL_MASTER), v.get(DATABASE),
                v.get(USERNAME), v.get(PASSWORD), configFile, v.get(KEY_PREFIX), capacity, batch,
                v.get(FLUSH_INTERVAL), v.get(TIMEOUT), v.get(CONNECT_TIMEOUT), min, max, heartbeat, ttl,
                v.get(DEAD_NODE_CLEANUP), v.get(IO_THREADS), v.get(FORWARD_MAX_IN_FLIGHT), v.get(WILL_POLL_INTERVAL),
                v.get(WILL_POLL_BATCH));
    }

    /**
     * The Redisson configuration: from {@link #configFile} if set, else from the keys. Either way the client owns its
     * event loops ({@code io-threads} of them), starts lazily (a node starts while Redis is down) and leaves retries to
     * the flusher's backoff. With Sentinel or Cluster every read goes to the master (Redisson's default reads from
     * replicas): Redis replicates asynchronously, so a replica can answer with the route or session as it was before
     * a takeover another node just wrote.
     */
    public Config redissonConfig(String clientName) {
        Config config;
        if (configFile != null) {
            try {
                config = Config.fromYAML(configFile.toFile());
            } catch (IOException | RuntimeException e) {
                throw new ConfigException(CONFIG_FILE.name() + " = '" + configFile + "' is not a Redisson YAML "
                        + "configuration: " + e.getMessage() + "; allowed: " + CONFIG_FILE.allowed());
            }
        } else {
            config = new Config();
            int timeoutMs = (int) timeout.toMillis();
            int connectMs = (int) connectTimeout.toMillis();
            switch (mode) {
                case "sentinel" -> {
                    SentinelServersConfig s = config.useSentinelServers().setMasterName(sentinelMaster)
                            .setDatabase(database).setTimeout(timeoutMs).setConnectTimeout(connectMs)
                            .setClientName(clientName).setRetryAttempts(0).setReadMode(ReadMode.MASTER);
                    addresses.forEach(s::addSentinelAddress);
                    s.setMasterConnectionPoolSize(8).setMasterConnectionMinimumIdleSize(1)
                            .setSlaveConnectionPoolSize(2).setSlaveConnectionMinimumIdleSize(1);
                    credentials(s);
                }
                case "cluster" -> {
                    ClusterServersConfig c = config.useClusterServers().setTimeout(timeoutMs)
                            .setConnectTimeout(connectMs).setClientName(clientName).setRetryAttempts(0)
                            .setReadMode(ReadMode.MASTER);
                    addresses.forEach(c::addNodeAddress);
                    c.setMasterConnectionPoolSize(8).setMasterConnectionMinimumIdleSize(1)
                            .setSlaveConnectionPoolSize(2).setSlaveConnectionMinimumIdleSize(1);
                    credentials(c);
                }
                default -> {
                    if (addresses.size() != 1) {
                        throw new ConfigException(ADDRESS.name() + " = '" + String.join(",", addresses)
                                + "' names " + addresses.size() + " servers while " + MODE.name()
                                + " is standalone; allowed: one address, or mode sentinel or cluster");
                    }
                    SingleServerConfig s = config.useSingleServer().setAddress(addresses.get(0))
                            .setDatabase(database).setTimeout(timeoutMs).setConnectTimeout(connectMs)
                            .setClientName(clientName).setRetryAttempts(0)
                            .setConnectionPoolSize(8).setConnectionMinimumIdleSize(1)
                            .setSubscriptionConnectionPoolSize(2).setSubscriptionConnectionMinimumIdleSize(1);
                    credentials(s);
                }
            }
        }
        config.setNettyThreads(ioThreads);
        config.setThreads(ioThreads);
        config.setLazyInitialization(true);
        return config;
    }

    private void credentials(org.redisson.config.BaseConfig<?> c) {
        if (!username.isEmpty()) {
            c.setUsername(username);
        }
        if (!password.isEmpty()) {
            c.setPassword(password);
        }
    }
}
