package io.mqttgw.routing.redis;

import io.mqttgw.routing.forward.RedisOperationForwarding;
import java.util.concurrent.CompletionStage;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The fleet's verdict on a node, as the forwarding of operations asks it: dead when some node claimed its cleanup and
 * its heartbeat key is still gone. A node claims a cleanup only once {@link NodeLiveness} found the node dead (its
 * heartbeat stood still for {@code node-ttl} on the claimer's own clock, while Redis answered), so no second notion
 * of death is made up here; the claim lasts while the cleanup runs and {@code node-ttl} after it. A heartbeat key
 * present again means the node came back, whatever the claim says. Two reads of one hash tag (one Redis node in a
 * Cluster), both asynchronous; a Redis failure fails the stage.
 */
final class DeadNodeVerdict implements RedisOperationForwarding.Liveness {
    private final RedissonClient client;
    private final RouteKeys keys;

    DeadNodeVerdict(RedissonClient client, RouteKeys keys) {
        this.client = client;
        this.keys = keys;
    }

    @Override
    public CompletionStage<Boolean> foundDead(String nodeId) {
        CompletionStage<Boolean> claimed = client.getBucket(keys.cleanupLock(nodeId), StringCodec.INSTANCE)
                .isExistsAsync();
        CompletionStage<Boolean> beating = client.getBucket(keys.alive(nodeId), StringCodec.INSTANCE).isExistsAsync();
        return claimed.thenCombine(beating, (claim, alive) -> claim && !alive);
    }
}
