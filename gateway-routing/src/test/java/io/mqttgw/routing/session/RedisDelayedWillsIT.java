package io.mqttgw.routing.session;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.DelayedWillStore;
import io.mqttgw.core.spi.DelayedWillStore.Armed;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.routing.testkit.RedisServerTests;
import io.mqttgw.routing.testkit.TestRouteStores;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The delayed-will scripts of the Redis session store against a real redis-server: arming fenced by the session's
 * epoch, cancelling by the resuming session open, and claiming once, with stores standing for nodes (one of them
 * killed: its client stopped, the store never closed).
 */
class RedisDelayedWillsIT extends RedisServerTests {
    static final String PREFIX = "wills-it";

    final List<RedissonClient> clients = new ArrayList<>();

    @AfterEach
    void stopClients() {
        for (RedissonClient c : clients) {
            if (!c.isShutdown()) {
                c.shutdown();
            }
        }
    }

    RedissonClient client(String name) {
        RedissonClient c = Redisson.create(TestRouteStores.settings(redis, "routes.redis.timeout", "15s")
                .redissonConfig(name));
        clients.add(c);
        return c;
    }

    RedisSessionStore store(RedissonClient client) {
        return new RedisSessionStore(client, PREFIX, Duration.ofMinutes(5), 10, 10, false);
    }

    static DelayedWillStore wills(RedisSessionStore store) {
        return store.delayedWills().orElseThrow();
    }

    static <T> T get(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(15, TimeUnit.SECONDS);
    }

    static UplinkMessage will(String clientId) {
        return new UplinkMessage(clientId, "devices/" + clientId + "/status", 1, false,
                ("gone " + clientId).getBytes(StandardCharsets.UTF_8), 1L);
    }

    static boolean willKept(String clientId) {
        return check.getKeys().countExists(PREFIX + ":will:{" + clientId + "}") == 1;
    }

    /** Due-index entries of the client ids starting with {@code prefix} (the other tests' stay until due). */
    static long indexed(String prefix) {
        long n = 0;
        for (int g = 0; g < SessionKeys.WILL_GROUPS; g++) {
            for (String member : check.<String>getScoredSortedSet(new SessionKeys(PREFIX).willsDue(g),
                    StringCodec.INSTANCE).readAll()) {
                n += member.substring(member.indexOf(':') + 1).startsWith(prefix) ? 1 : 0;
            }
        }
        return n;
    }

    /** A session opened by the connection of {@code epoch} that has just ended. */
    static void connectedAndLeft(RedisSessionStore store, String clientId, long epoch) throws Exception {
        get(store.open(clientId, false, 60_000, epoch));
        get(store.disconnected(clientId, epoch, 60_000));
    }

    @Test
    void aWillArmedByAKilledNodeIsPublishedOnceByAnotherWhenDue() throws Exception {
        RedissonClient killed = client("killed");
        RedisSessionStore a = store(killed);
        connectedAndLeft(a, "k-orphan", 11);
        long armedAt = System.nanoTime();
        assertEquals(Armed.ARMED, get(wills(a).arm("k-orphan", 11, 1500, will("k-orphan"))));
        killed.shutdown();

        RedisSessionStore b = store(client("b"));
        ConcurrentLinkedQueue<UplinkMessage> published = new ConcurrentLinkedQueue<>();
        wills(b).start(published::add);
        await("the orphaned will published", () -> published.size() == 1, 15);
        assertTrue(System.nanoTime() - armedAt >= TimeUnit.MILLISECONDS.toNanos(1400), "not before it was due");
        UplinkMessage will = published.peek();
        assertEquals("devices/k-orphan/status", will.topic());
        assertEquals("gone k-orphan", new String(will.payload(), StandardCharsets.UTF_8));
        Thread.sleep(2500);
        assertEquals(1, published.size(), "published once");
        assertTrue(!willKept("k-orphan"), "claimed, so gone from Redis");
        assertEquals(0, indexed("k-orphan"), "the index entry forgotten");
        assertEquals(1, b.willsClaimedCount());
        b.close();
    }

    @Test
    void aResumingSessionOpenOnAnyNodeDeletesTheWaitingWill() throws Exception {
        RedisSessionStore a = store(client("a"));
        RedisSessionStore b = store(client("b"));
        connectedAndLeft(a, "k-back", 21);
        assertEquals(Armed.ARMED, get(wills(a).arm("k-back", 21, 60_000, will("k-back"))));
        assertTrue(willKept("k-back"));
        assertTrue(get(b.open("k-back", false, 60_000, 22)).present());
        assertTrue(!willKept("k-back"), "the resume cancelled it atomically with the session open");
        assertEquals(null, get(((RedisDelayedWills) wills(b)).claim("k-back", "21")));
    }

    @Test
    void anArmArrivingAfterTheSessionResumedElsewhereKeepsNothing() throws Exception {
        RedisSessionStore a = store(client("a"));
        RedisSessionStore b = store(client("b"));
        connectedAndLeft(a, "k-late", 31);
        get(b.open("k-late", false, 60_000, 32));
        assertEquals(Armed.RESUMED, get(wills(a).arm("k-late", 31, 60_000, will("k-late"))));
        assertTrue(!willKept("k-late"));
    }

    @Test
    void anArmArrivingAfterACleanStartElsewhereSaysTheSessionEnded() throws Exception {
        RedisSessionStore a = store(client("a"));
        RedisSessionStore b = store(client("b"));
        connectedAndLeft(a, "k-clean", 41);
        get(b.open("k-clean", true, 60_000, 42));
        assertEquals(Armed.ENDED, get(wills(a).arm("k-clean", 41, 60_000, will("k-clean"))));
        connectedAndLeft(a, "k-clean0", 43);
        get(b.open("k-clean0", true, 0, 44));
        assertEquals(Armed.ENDED, get(wills(a).arm("k-clean0", 43, 60_000, will("k-clean0"))),
                "a clean start that keeps nothing ended the session too");
        assertTrue(!willKept("k-clean") && !willKept("k-clean0"));
    }

    @Test
    void aCleanStartOnAnyNodeTakesTheWaitingWillForThatNodeToPublishAtOnce() throws Exception {
        RedisSessionStore a = store(client("a"));
        RedisSessionStore b = store(client("b"));
        ConcurrentLinkedQueue<UplinkMessage> publishedByB = new ConcurrentLinkedQueue<>();
        wills(b).start(publishedByB::add);
        for (boolean keep : new boolean[] {true, false}) {
            String id = keep ? "k-fresh" : "k-fresh0";
            connectedAndLeft(a, id, 61);
            assertEquals(Armed.ARMED, get(wills(a).arm(id, 61, 60_000, will(id))));
            get(b.open(id, true, keep ? 60_000 : 0, 62));
            assertTrue(!willKept(id), "taken by the session open");
        }
        assertEquals(List.of("k-fresh", "k-fresh0"), publishedByB.stream().map(UplinkMessage::clientId).toList(),
                "published at once by the node of the clean start");
        b.close();
    }

    @Test
    void ofTwoClaimsOfOneWillExactlyOneGetsIt() throws Exception {
        RedisSessionStore a = store(client("a"));
        RedisSessionStore b = store(client("b"));
        connectedAndLeft(a, "k-claim", 51);
        get(wills(a).arm("k-claim", 51, 60_000, will("k-claim")));
        CompletableFuture<byte[]> one = ((RedisDelayedWills) wills(a)).claim("k-claim", "51").toCompletableFuture();
        CompletableFuture<byte[]> two = ((RedisDelayedWills) wills(b)).claim("k-claim", "51").toCompletableFuture();
        assertEquals(1, (get(one) != null ? 1 : 0) + (get(two) != null ? 1 : 0));
    }

    @Test
    void aPollClaimsNoMoreThanTheConfiguredBatch() throws Exception {
        RedisSessionStore a = store(client("a"));
        int count = 5;
        for (int i = 0; i < count; i++) {
            String id = "k-batch-" + i;
            long epoch = 2000 + i;
            assertEquals(Armed.ARMED, a.open(id, false, 60_000, epoch)
                    .thenCompose(s -> a.disconnected(id, epoch, 60_000))
                    .thenCompose(v -> wills(a).arm(id, epoch, 1, will(id))).toCompletableFuture()
                    .get(30, TimeUnit.SECONDS));
        }
        RedisSessionStore b = store(client("b"));
        b.willPolling(java.time.Duration.ofMillis(2000), 2);
        ConcurrentLinkedQueue<UplinkMessage> published = new ConcurrentLinkedQueue<>();
        wills(b).start(published::add);
        await("the first poll", () -> !published.isEmpty(), 30);
        // well before the next poll, 2 s after the first
        Thread.sleep(300);
        assertEquals(2, published.size(), "one poll claims at most its batch");
        await("the rest, two a poll", () -> published.size() == count, 30);
        assertEquals(0, indexed("k-batch-"));
        b.close();
    }

    @Test
    void twoPollingNodesPublishEachOfManyDueWillsOnce() throws Exception {
        RedisSessionStore a = store(client("a"));
        int count = 3 * RedisDelayedWills.BATCH;
        List<CompletableFuture<Armed>> arms = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String id = "k-many-" + i;
            long epoch = 1000 + i;
            arms.add(a.open(id, false, 60_000, epoch).thenCompose(s -> a.disconnected(id, epoch, 60_000))
                    .thenCompose(v -> wills(a).arm(id, epoch, 1000, will(id))).toCompletableFuture());
        }
        for (CompletableFuture<Armed> arm : arms) {
            assertEquals(Armed.ARMED, arm.get(30, TimeUnit.SECONDS));
        }
        RedisSessionStore b = store(client("b"));
        RedisSessionStore c = store(client("c"));
        ConcurrentLinkedQueue<UplinkMessage> published = new ConcurrentLinkedQueue<>();
        wills(b).start(published::add);
        wills(c).start(published::add);
        await("every will published", () -> published.size() >= count, 30);
        Thread.sleep(2500);
        Map<String, Integer> times = new HashMap<>();
        for (UplinkMessage m : published) {
            times.merge(m.clientId(), 1, Integer::sum);
        }
        assertEquals(count, times.size());
        assertEquals(count, published.size(), "each published once: " + (published.size() - count) + " twice");
        assertEquals(count, b.willsClaimedCount() + c.willsClaimedCount());
        assertEquals(0, indexed("k-many-"));
        b.close();
        c.close();
    }
}
