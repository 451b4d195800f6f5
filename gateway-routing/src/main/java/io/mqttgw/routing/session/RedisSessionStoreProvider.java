package io.mqttgw.routing.session;

import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.spi.ProviderContext;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.spi.SessionStoreProvider;
import io.mqttgw.routing.redis.RedisConnector;
import io.mqttgw.routing.redis.RedisRouteSettings;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code session.provider: redis}. Connects with the {@code routes.redis.*} keys (the same Redis as the route table,
 * the same key prefix), with a client of its own so that session traffic never queues behind route flushes. Scripts
 * are sent by SHA once cached. The client connects on its own thread ({@link RedisConnector}): a node starts while
 * Redis is down, serves devices as new sessions meanwhile (counted in {@code mqttgw_sessions_redis_refused_total},
 * {@code /health} DEGRADED) and uses Redis once it answers.
 */
public final class RedisSessionStoreProvider implements SessionStoreProvider {
    private static final Logger LOG = LoggerFactory.getLogger(RedisSessionStoreProvider.class);

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public SessionStore create(ProviderContext context) {
        RedisRouteSettings settings = RedisRouteSettings.from(context.config().values());
        GatewayConfig.Session session = context.config().session();
        Config config = settings.redissonConfig("mqttgw-sessions-" + context.nodeId());
        config.setUseScriptCache(true);
        RedissonClient client = Redisson.create(config);
        LOG.info("Redis session store: key prefix {}, expiry {} s, {} pending per device, {} retained at most",
                settings.keyPrefix(), session.expiry().toSeconds(), session.maxPending(), session.maxRetained());
        RedisConnector connector = RedisConnector.start(client, "sessions", settings);
        RedisSessionStore store = new RedisSessionStore(client, connector, settings.keyPrefix(), session.expiry(),
                session.maxPending(), session.maxRetained(), true, context.nodeId(), session.maxSessions());
        store.willPolling(settings.willPollInterval(), settings.willPollBatch());
        store.openPatience(session.openTimeout());
        // the gateway waits for the store within the same bound; the store gives up before it, stopping its client
        store.closeTimeout(context.config().shutdown().timeout().multipliedBy(3).dividedBy(4));
        // as often as the route table's heartbeat notices Redis losing data, so sessions come back with the routes
        store.watch(settings.heartbeatInterval(), settings.timeout());
        io.micrometer.core.instrument.FunctionCounter.builder("mqttgw.sessions.evicted", store,
                        RedisSessionStore::evictedCount)
                .description("Persistent sessions deleted to stay within session.max-sessions, the longest "
                        + "disconnected first").register(context.meters());
        io.micrometer.core.instrument.FunctionCounter.builder("mqttgw.sessions.redis.refused", store,
                        RedisSessionStore::refusedCount)
                .description("Session store calls failed at once because Redis had not answered yet (a CONNECT "
                        + "served as a new session, downlink for an offline device not queued)")
                .register(context.meters());
        io.micrometer.core.instrument.FunctionCounter.builder("mqttgw.sessions.redis.skipped", store,
                        RedisSessionStore::skippedCount)
                .description("Session opens not sent because Redis had answered nothing for a whole "
                        + "session.open-timeout (a CONNECT served as a new session at once)")
                .register(context.meters());
        io.micrometer.core.instrument.FunctionCounter.builder("mqttgw.sessions.redis.rewritten", store,
                        RedisSessionStore::rewrittenCount)
                .description("Persistent sessions of connected devices written again after Redis lost its data")
                .register(context.meters());
        context.meters().gauge("mqttgw.sessions.redis.left", store, RedisSessionStore::sessionsLeft);
        io.micrometer.core.instrument.FunctionCounter.builder("mqttgw.wills.redis.claimed", store,
                        RedisSessionStore::willsClaimedCount)
                .description("Delayed wills this node claimed in Redis when due and published")
                .register(context.meters());
        io.micrometer.core.instrument.FunctionCounter.builder("mqttgw.wills.redis.poll.failures", store,
                        RedisSessionStore::willPollFailureCount)
                .description("Polls for due delayed wills that failed; retried every tick").register(context.meters());
        return store;
    }
}
