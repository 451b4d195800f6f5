package io.mqttgw.routing.redis;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.routing.session.RedisSessionStore;
import io.mqttgw.routing.testkit.RedisServerTests;
import io.mqttgw.routing.testkit.TestRouteStores;
import io.mqttgw.routing.testkit.TestRouteStores.FakeNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * A node that crashes with persistent devices connected: nobody disconnects them, so without help their sessions
 * would never expire. The survivor that removes the dead node's routes starts those sessions' expiry, fenced by the
 * connections' epochs, so a session its device already resumed elsewhere stays.
 */
class DeadNodeSessionExpiryIT extends RedisServerTests {
    static final Duration EXPIRY = Duration.ofMinutes(10);
    final List<RedisRouteStore> stores = new ArrayList<>();
    final List<RedissonClient> clients = new ArrayList<>();
    final AtomicLong epochs = new AtomicLong(System.currentTimeMillis() * 1000);
    RedisSessionStore sessions;

    @BeforeEach
    void emptyRedis() {
        redis.start();
        check.getKeys().flushall();
        RedissonClient client = Redisson.create(TestRouteStores.settings(redis).redissonConfig("test-sessions"));
        clients.add(client);
        sessions = new RedisSessionStore(client, "mqttgw", EXPIRY, 10, 10, false);
    }

    @AfterEach
    void closeStores() throws Exception {
        for (RedisRouteStore s : stores) {
            s.close().toCompletableFuture().get(20, TimeUnit.SECONDS);
        }
        sessions.close().toCompletableFuture().get(20, TimeUnit.SECONDS);
        clients.forEach(RedissonClient::shutdown);
    }

    RedissonClient start(String id, FakeNode events) {
        RedisRouteSettings settings = TestRouteStores.settings(redis, "routes.redis.heartbeat-interval", "100ms",
                "routes.redis.node-ttl", "1s");
        RedissonClient client = Redisson.create(settings.redissonConfig("test-" + id));
        clients.add(client);
        RedisRouteStore store = new RedisRouteStore(settings, id, Duration.ofSeconds(5), client,
                TestRouteStores.meters());
        store.expireDeadNodeSessions(EXPIRY);
        stores.add(store);
        store.start(events);
        return client;
    }

    /** A persistent device connected to {@code node}: its route written, its session opened by the same epoch. */
    Route connect(RedisRouteStore store, FakeNode events, String node, String clientId, IdentityProof proof)
            throws Exception {
        Route r = new Route(clientId, node, epochs.incrementAndGet(), System.currentTimeMillis(), "127.0.0.1:40000",
                proof);
        events.live.put(clientId, r);
        store.put(r).toCompletableFuture().get(20, TimeUnit.SECONDS);
        sessions.open(proof.sessionKey(clientId), false, r.epoch()).toCompletableFuture().get(20, TimeUnit.SECONDS);
        return r;
    }

    static long pttl(String sessionKey) {
        return check.getKeys().remainTimeToLive("mqttgw:session:{" + sessionKey + "}");
    }

    @Test
    void survivorStartsTheExpiryOfTheSessionsTheDeadNodeHeld() throws Exception {
        FakeNode dyingEvents = new FakeNode();
        RedissonClient dyingClient = start("dying", dyingEvents);
        start("survivor", new FakeNode());
        RedisRouteStore dying = stores.get(0);
        connect(dying, dyingEvents, "dying", "held-1", IdentityProof.CERTIFICATE);
        connect(dying, dyingEvents, "dying", "held-2", IdentityProof.NO_CERTIFICATE);
        connect(dying, dyingEvents, "dying", "moved", IdentityProof.CERTIFICATE);
        // the device "moved" resumed its session on another node before the cleanup (a newer connection's epoch)
        sessions.open("moved", false, epochs.incrementAndGet()).toCompletableFuture().get(20, TimeUnit.SECONDS);
        String noCertificateKey = IdentityProof.NO_CERTIFICATE.sessionKey("held-2");
        assertEquals(-1, pttl("held-1"), "a connected device's session has no expiry");
        assertEquals(-1, pttl(noCertificateKey));
        // the survivor must have watched the heartbeat advance before a stop can count as death
        Thread.sleep(1500);

        NodeLivenessIT.crash(() -> dyingClient.shutdown(0, 0, TimeUnit.SECONDS));
        await("the dead node's routes removed", () -> !check.getKeys().getKeysStream()
                .anyMatch(k -> k.startsWith("mqttgw:route:")), 30);

        long ttl = pttl("held-1");
        assertTrue(ttl > 0 && ttl <= EXPIRY.toMillis(), "the held session expires in session.expiry: " + ttl);
        long ttl2 = pttl(noCertificateKey);
        assertTrue(ttl2 > 0 && ttl2 <= EXPIRY.toMillis(), "the cert-less device's session too: " + ttl2);
        assertEquals(-1, pttl("moved"), "a session resumed elsewhere is its new connection's");
        SessionStore.SessionSummary summary = sessions.describe("held-1").toCompletableFuture().get(10,
                TimeUnit.SECONDS).orElseThrow();
        assertTrue(!summary.connected() && summary.expiresAtMillis() > 0, summary.toString());
    }
}
