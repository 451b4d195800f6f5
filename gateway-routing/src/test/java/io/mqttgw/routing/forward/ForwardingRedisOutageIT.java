package io.mqttgw.routing.forward;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.routing.redis.RedisRouteStore;
import io.mqttgw.routing.testkit.RedisServerTests;
import io.mqttgw.routing.testkit.TestRouteStores;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Redis hangs (SIGSTOP: connections open, nothing answers) while the asking node checks whether the holder is alive:
 * the operation fails with an answer that says so after the Redis timeout, not after its own bound, and nothing was
 * sent.
 */
class ForwardingRedisOutageIT extends RedisServerTests {

    @Test
    void redisHangingWhileTheHolderIsCheckedIsAnsweredClearlyBeforeTheBound() throws Exception {
        RedisRouteStore store = TestRouteStores.store(TestRouteStores.settings(redis), "node-asking",
                TestRouteStores.meters());
        try {
            store.start(new TestRouteStores.FakeNode());
            RedisOperationForwarding forwarding = (RedisOperationForwarding) store.forwarding().orElseThrow();
            TestRouteStores.await("the asking node forwards", forwarding::subscribed, 30);
            redis.freeze();

            Duration bound = Duration.ofSeconds(30);
            long started = System.nanoTime();
            CompletableFuture<?> downlink = forwarding.downlink("node-holder", forwarding.newCorrelationId(),
                    new DownlinkMessage("dev-x", "t/cmd", 1, false, new byte[] {1}), bound).toCompletableFuture();
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> downlink.get(60, TimeUnit.SECONDS));
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertInstanceOf(IllegalStateException.class, failed.getCause(), failed.toString());
            assertTrue(failed.getCause().getMessage().contains("cannot tell whether node node-holder is alive"),
                    failed.getCause().getMessage());
            assertTrue(failed.getCause().getMessage().contains("not sent"), failed.getCause().getMessage());
            assertTrue(tookMillis < bound.toMillis() / 2, "answered without waiting the bound: " + tookMillis + " ms");
        } finally {
            redis.stop();
            store.close().toCompletableFuture().get(60, TimeUnit.SECONDS);
        }
    }
}
