package io.mqttgw.routing.redis;

import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.routing.session.RedisSessionStore;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The read side of the gateway's Redis state for a business service: where a device is connected, and a way to
 * queue a command in an offline device's persistent session. Pairs with the Kafka downlink client:
 * {@code
 * DownlinkClient.builder().routes(directory::lookup).offlinePolicy(OfflinePolicy.store(directory::storeOffline))}.
 * Writes nothing else; thread-safe; stages complete on the Redis client's threads.
 */
public final class RedisDeviceDirectory {
    private final RedissonClient client;
    private final RouteKeys keys;
    private final RedisSessionStore sessions;

    /**
     * @param client     a Redisson client of the service's own (not closed here)
     * @param keyPrefix  the gateways' {@code routes.redis.key-prefix}
     * @param maxPending the gateways' {@code session.max-pending}
     */
    public RedisDeviceDirectory(RedissonClient client, String keyPrefix, int maxPending) {
        this.client = client;
        this.keys = new RouteKeys(keyPrefix);
        this.sessions = new RedisSessionStore(client, keyPrefix, Duration.ofDays(1), maxPending, 1, false);
    }

    /** The node holding {@code clientId}, or empty when it is connected to none. */
    public CompletionStage<Optional<Route>> lookup(String clientId) {
        return client.<String, String>getMap(keys.route(clientId), StringCodec.INSTANCE).readAllMapAsync()
                .thenApply(fields -> RedisRouteStore.toRoute(clientId, fields));
    }

    /**
     * Appends a QoS 1/2 command to the persistent session of {@code message.clientId()}, delivered in order when the
     * device reconnects; a device without a persistent session gets nothing stored ({@code NO_SESSION}).
     */
    public CompletionStage<SessionStore.Append> storeOffline(DownlinkMessage message) {
        if (message.qos() == 0) {
            throw new IllegalArgumentException("QoS 0 is not kept for offline devices (MQTT-3.1.2-5 leaves it out)");
        }
        return sessions.append(message);
    }
}
