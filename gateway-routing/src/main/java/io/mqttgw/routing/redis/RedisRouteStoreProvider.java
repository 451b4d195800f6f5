package io.mqttgw.routing.redis;

import io.mqttgw.core.config.ConfigKey;
import io.mqttgw.core.spi.ProviderContext;
import io.mqttgw.core.spi.RouteStore;
import io.mqttgw.core.spi.RouteStoreProvider;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code routes.provider: redis}. Builds one Redis client for the node (its own event loops, lazily connected, so a
 * node starts while Redis is down and reports DEGRADED until it answers) and the store on it.
 */
public final class RedisRouteStoreProvider implements RouteStoreProvider {
    private static final Logger LOG = LoggerFactory.getLogger(RedisRouteStoreProvider.class);

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public List<ConfigKey<?>> configKeys() {
        return RedisConfigKeys.ALL;
    }

    @Override
    public RouteStore create(ProviderContext context) {
        RedisRouteSettings settings = RedisRouteSettings.from(context.config().values());
        RedissonClient client = Redisson.create(settings.redissonConfig("mqttgw-" + context.nodeId()));
        LOG.info("Redis route table: {} (queue {}, batch {}, flush every {} ms, key prefix {})",
                settings.configFile() != null ? "Redisson config " + settings.configFile()
                        : settings.mode() + " " + String.join(",", settings.addresses()),
                settings.queueCapacity(), settings.batchSize(), settings.flushInterval().toMillis(),
                settings.keyPrefix());
        RedisRouteStore store = new RedisRouteStore(settings, context.nodeId(), context.config().shutdown().timeout(),
                client, context.meters());
        if ("redis".equals(context.config().session().provider())) {
            store.expireDeadNodeSessions(context.config().session().expiry());
        }
        return store;
    }
}
