package io.mqttgw.routing.redis;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.OperationForwarding;
import io.mqttgw.routing.forward.RedisOperationForwarding;
import io.mqttgw.routing.testkit.RedisTopologyExtension;
import io.mqttgw.routing.testkit.TestRouteStores.FakeNode;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * A node crashed while its routes still name it: once the fleet found it dead (its heartbeat stopped advancing and
 * its key is gone), a downlink or kick forwarded to it is answered unreachable at once, not after its bound. The same
 * steps on every Redis topology the ITs start.
 */
final class DeadHolderForwarding {
    private DeadHolderForwarding() {
    }

    static void assertAnsweredUnreachableWellBeforeTheBound(RedisTopologyExtension<?> redis, String crashed)
            throws Exception {
        RedissonClient check = redis.check();
        // the crashed node: a member of the node set whose last heartbeat expires and is never written again
        check.getSet("mqttgw:nodes", StringCodec.INSTANCE).add(crashed);
        check.getBucket("mqttgw:node:{" + crashed + "}:alive", StringCodec.INSTANCE)
                .set(crashed + "/1/1 41", Duration.ofMillis(500));
        // node-ttl 5 s: the claim of the cleanup (the fleet's verdict) outlives the quick cleanup by that long
        RedisRouteStore store = redis.start("node-asking", new FakeNode(), "routes.redis.heartbeat-interval", "1s",
                "routes.redis.node-ttl", "5s");
        RedisOperationForwarding forwarding = (RedisOperationForwarding) store.forwarding().orElseThrow();
        await("the asking node forwards", forwarding::subscribed, 30);
        await("the fleet found " + crashed + " dead", () -> check.getBucket("mqttgw:node:{" + crashed + "}:cleanup",
                StringCodec.INSTANCE).isExists(), 60);

        Duration bound = Duration.ofSeconds(20);
        long started = System.nanoTime();
        CompletableFuture<?> downlink = forwarding.downlink(crashed, forwarding.newCorrelationId(),
                new DownlinkMessage("dev-of-" + crashed, "t/cmd", 1, false, new byte[] {1}), bound)
                .toCompletableFuture();
        ExecutionException refused = assertThrows(ExecutionException.class, () -> downlink.get(60, TimeUnit.SECONDS));
        long tookMillis = (System.nanoTime() - started) / 1_000_000;
        assertInstanceOf(OperationForwarding.Unreachable.class, refused.getCause(), refused.toString());
        assertTrue(refused.getCause().getMessage().contains(crashed), refused.getCause().getMessage());
        assertTrue(tookMillis < bound.toMillis() / 2, "answered without waiting the bound: " + tookMillis + " ms");

        CompletableFuture<?> kick = forwarding.kick(crashed, forwarding.newCorrelationId(), "dev-of-" + crashed,
                false, bound).toCompletableFuture();
        refused = assertThrows(ExecutionException.class, () -> kick.get(60, TimeUnit.SECONDS));
        assertInstanceOf(OperationForwarding.Unreachable.class, refused.getCause(), refused.toString());
    }
}
