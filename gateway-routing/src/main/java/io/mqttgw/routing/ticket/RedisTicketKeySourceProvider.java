package io.mqttgw.routing.ticket;

import io.mqttgw.core.spi.ProviderContext;
import io.mqttgw.core.spi.TicketKeySource;
import io.mqttgw.core.spi.TicketKeySourceProvider;
import io.mqttgw.routing.redis.RedisRouteSettings;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * {@code listener.tls.ticket-key-source: redis}, and {@code auto} with {@code routes.provider: redis}: the ticket keys
 * in the route table's Redis (the {@code routes.redis.*} keys, the same key prefix), with a small client of its own
 * (lazily connected: a node starts while Redis is down and serves with its own keys until it answers).
 */
public final class RedisTicketKeySourceProvider implements TicketKeySourceProvider {
    @Override
    public String name() {
        return "redis";
    }

    @Override
    public TicketKeySource create(ProviderContext context) {
        RedisRouteSettings settings = RedisRouteSettings.from(context.config().values());
        RedissonClient client = Redisson.create(settings.redissonConfig("mqttgw-tickets-" + context.nodeId()));
        return new RedisTicketKeySource(client, settings.keyPrefix(), "Redis (" + (settings.configFile() != null
                ? "Redisson config " + settings.configFile() : String.join(",", settings.addresses()))
                + ", key " + settings.keyPrefix() + ":tls:ticket-key:<epoch>)");
    }
}
