package io.mqttgw.routing.session;

import static io.mqttgw.routing.testkit.TestRouteStores.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.SessionStore.Append;
import io.mqttgw.core.spi.SessionStore.StoredMessage;
import io.mqttgw.core.spi.SessionStore.StoredSession;
import io.mqttgw.routing.redis.RedisDeviceDirectory;
import io.mqttgw.routing.redis.RedisRouteStore;
import io.mqttgw.routing.testkit.RedisTestServer;
import io.mqttgw.routing.testkit.TestRouteStores;
import io.mqttgw.routing.testkit.TestRouteStores.FakeNode;
import io.mqttgw.core.spi.Subscription;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/** The Redis session store against a real redis-server on 127.0.0.1: the scripts, the key layout, the decoding. */
class RedisSessionStoreIT {
    static final String PREFIX = "it";
    static final Duration EXPIRY = Duration.ofMinutes(5);
    static final int MAX_PENDING = 3;
    static final int MAX_RETAINED = 5;

    @TempDir
    static Path dir;
    static RedisTestServer redis;
    static RedissonClient check;
    static RedissonClient client;
    static RedisSessionStore store;

    @BeforeAll
    static void startRedis() {
        redis = RedisTestServer.start(dir.resolve("redis"));
        check = TestRouteStores.checker(redis);
        // a 1 s answer bound failed the bulk-retain case while other builds shared the 2 cores: nothing here tests
        // timeouts
        client = Redisson.create(TestRouteStores.settings(redis, "routes.redis.timeout", "15s")
                .redissonConfig("session-store-it"));
        store = new RedisSessionStore(client, PREFIX, EXPIRY, MAX_PENDING, MAX_RETAINED, false);
    }

    @AfterAll
    static void stopRedis() {
        if (client != null) {
            client.shutdown();
        }
        if (check != null) {
            check.shutdown();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @BeforeEach
    void emptyRedis() {
        check.getKeys().flushall();
    }

    static <T> T get(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    static DownlinkMessage command(String clientId, String payload) {
        return new DownlinkMessage(clientId, "devices/" + clientId + "/commands", 1, false,
                payload.getBytes(StandardCharsets.UTF_8));
    }

    static DownlinkMessage retained(String topic, String payload) {
        return new DownlinkMessage(null, topic, 1, true, payload.getBytes(StandardCharsets.UTF_8));
    }

    static long pttl(String key) {
        return check.getBucket(key, StringCodec.INSTANCE).remainTimeToLive();
    }

    static List<String> payloads(StoredSession session) {
        return session.pending().stream().map(m -> new String(m.message().payload(), StandardCharsets.UTF_8))
                .toList();
    }

    static Set<String> topics(List<DownlinkMessage> messages) {
        return messages.stream().map(DownlinkMessage::topic).collect(Collectors.toCollection(TreeSet::new));
    }

    static String session(String clientId) {
        return PREFIX + ":session:{" + clientId + "}";
    }

    // --- open, clean session, expiry --------------------------------------------------------------------------

    @Test
    void aPersistentSessionIsNotPresentOnFirstOpenAndPresentOnTheNext() throws Exception {
        StoredSession first = get(store.open("dev-p", false, 1));
        assertFalse(first.present());
        assertTrue(first.subscriptions().isEmpty());
        assertTrue(first.pending().isEmpty());
        assertEquals("1", check.<String, String>getMap(session("dev-p"), StringCodec.INSTANCE).get("epoch"));

        StoredSession second = get(store.open("dev-p", false, 2));
        assertTrue(second.present());
        assertEquals("2", check.<String, String>getMap(session("dev-p"), StringCodec.INSTANCE).get("epoch"));
    }

    @Test
    void aCleanOpenDiscardsTheStoredSessionAndAnswersNone() throws Exception {
        get(store.open("dev-c", false, 1));
        get(store.saveSubscriptions("dev-c", Map.of("devices/dev-c/commands", Subscription.ofQos(1))));
        assertEquals(Append.Status.STORED, get(store.append(command("dev-c", "one"))).status());
        assertEquals(3, check.getKeys().countExists(session("dev-c"), session("dev-c") + ":pending",
                session("dev-c") + ":messages"));

        assertEquals(StoredSession.NONE, get(store.open("dev-c", true, 2)));
        assertEquals(0, check.getKeys().countExists(session("dev-c"), session("dev-c") + ":pending",
                session("dev-c") + ":messages"), "all three keys deleted");
        assertEquals(Append.NO_SESSION, get(store.append(command("dev-c", "two"))),
                "a clean session keeps nothing");
        assertFalse(get(store.open("dev-c", false, 3)).present(), "the next persistent open starts afresh");
    }

    @Test
    void disconnectStartsTheExpiryOnlyForTheConnectionThatOpenedTheSessionLast() throws Exception {
        String c = "dev-e";
        get(store.open(c, false, 100));
        get(store.append(command(c, "kept")));
        // the device reconnected elsewhere (epoch 200) before the first node noticed its connection ended
        get(store.open(c, false, 200));
        get(store.disconnected(c, 100));
        for (String key : List.of(session(c), session(c) + ":pending", session(c) + ":messages")) {
            assertEquals(-1, pttl(key), key + " stays without expiry while the newer connection lives");
        }

        get(store.disconnected(c, 200));
        for (String key : List.of(session(c), session(c) + ":pending", session(c) + ":messages")) {
            long ttl = pttl(key);
            assertTrue(ttl > EXPIRY.toMillis() - 60_000 && ttl <= EXPIRY.toMillis(), key + " PTTL " + ttl);
        }

        StoredSession back = get(store.open(c, false, 300));
        assertTrue(back.present());
        assertEquals(List.of("kept"), payloads(back));
        for (String key : List.of(session(c), session(c) + ":pending", session(c) + ":messages")) {
            assertEquals(-1, pttl(key), key + " persists again while connected");
        }
    }

    @Test
    void anAppendToAnOfflineSessionExpiresWithIt() throws Exception {
        String c = "dev-off";
        get(store.open(c, false, 1));
        get(store.disconnected(c, 1));
        assertEquals(0, check.getKeys().countExists(session(c) + ":pending"), "nothing pending yet");

        assertEquals(Append.Status.STORED, get(store.append(command(c, "late"))).status());
        for (String key : List.of(session(c) + ":pending", session(c) + ":messages")) {
            long ttl = pttl(key);
            assertTrue(ttl > 0 && ttl <= EXPIRY.toMillis(), key + " PTTL " + ttl);
        }
    }

    @Test
    void anExpiredSessionIsGoneAndReopensAsNew() throws Exception {
        RedisSessionStore shortLived = new RedisSessionStore(client, PREFIX, Duration.ofMillis(50), MAX_PENDING,
                MAX_RETAINED, false);
        get(shortLived.open("dev-x", false, 1));
        get(shortLived.append(command("dev-x", "gone")));
        get(shortLived.disconnected("dev-x", 1));
        await("session keys expired", () -> check.getKeys().countExists(session("dev-x"),
                session("dev-x") + ":pending", session("dev-x") + ":messages") == 0, 5);
        assertEquals(Append.NO_SESSION, get(shortLived.append(command("dev-x", "after"))));
        assertFalse(get(shortLived.open("dev-x", false, 2)).present());
    }

    @Test
    void aFloodOfNewIdsKeepsTheSessionsThatLeftThisNodeAtTheBoundOldestFirst() throws Exception {
        RedisSessionStore bounded = new RedisSessionStore(client, PREFIX, EXPIRY, MAX_PENDING, MAX_RETAINED, false,
                "node-a", 3);
        for (int i = 0; i < 10; i++) {
            get(bounded.open("flood-" + i, false, 100 + i));
            get(bounded.disconnected("flood-" + i, 100 + i));
            // the bound orders by disconnect time in milliseconds
            Thread.sleep(2);
        }
        assertEquals(7, bounded.evictedCount());
        assertEquals(3, bounded.sessionsLeft());
        for (int i = 0; i < 7; i++) {
            assertEquals(0, check.getKeys().countExists(session("flood-" + i)), "flood-" + i + " evicted");
        }
        for (int i = 7; i < 10; i++) {
            assertEquals(1, check.getKeys().countExists(session("flood-" + i)), "flood-" + i + " kept");
        }
        assertEquals(3, check.getScoredSortedSet(PREFIX + ":sessions-left:{node-a}", StringCodec.INSTANCE).size());
    }

    @Test
    void neverEvictsASessionWhoseDeviceCameBack() throws Exception {
        RedisSessionStore bounded = new RedisSessionStore(client, PREFIX, EXPIRY, MAX_PENDING, MAX_RETAINED, false,
                "node-a", 1);
        get(bounded.open("back", false, 1));
        get(bounded.disconnected("back", 1));
        // it reconnects (through another node, which does not touch node-a's set)
        get(bounded.open("back", false, 2));
        Thread.sleep(2);
        get(bounded.open("other", false, 3));
        get(bounded.disconnected("other", 3));
        assertEquals(0, bounded.evictedCount(), "the popped entry named a session that is connected again");
        assertEquals(1, check.getKeys().countExists(session("back")));
        assertTrue(get(bounded.open("back", false, 4)).present());
    }

    // --- pending messages -------------------------------------------------------------------------------------

    @Test
    void appendsKeepTheirOrderAndIdsUpToMaxPendingAndOpenReturnsThemOldestFirst() throws Exception {
        String c = "dev-q";
        get(store.open(c, false, 1));
        DownlinkMessage exotic = new DownlinkMessage(c, "devices/dev-q/ünïcode", 2, true,
                new byte[] {0, (byte) 0xFF, 10, 13}, 4_102_444_800_000L);
        Append a1 = get(store.append(command(c, "one")));
        Append a2 = get(store.append(exotic));
        Append a3 = get(store.append(command(c, "three")));
        assertEquals(List.of(Append.stored("1"), Append.stored("2"), Append.stored("3")), List.of(a1, a2, a3));
        assertEquals(Append.FULL, get(store.append(command(c, "four"))), "session.max-pending is 3");

        StoredSession s = get(store.open(c, false, 2));
        assertEquals(List.of("1", "2", "3"), s.pending().stream().map(StoredMessage::id).toList());
        DownlinkMessage back = s.pending().get(1).message();
        assertEquals(exotic.clientId(), back.clientId());
        assertEquals(exotic.topic(), back.topic());
        assertEquals(2, back.qos());
        assertTrue(back.retain());
        assertArrayEquals(exotic.payload(), back.payload());
        assertEquals(exotic.expiresAtMillis(), back.expiresAtMillis());

        get(store.remove(c, "2"));
        get(store.remove(c, "2")); // removing twice is harmless
        get(store.remove(c, "no-such-id"));
        assertEquals(Append.stored("4"), get(store.append(command(c, "four"))), "room again, ids keep rising");
        StoredSession after = get(store.open(c, false, 3));
        assertEquals(List.of("1", "3", "4"), after.pending().stream().map(StoredMessage::id).toList());
        assertEquals(List.of("one", "three", "four"), payloads(after));
    }

    @Test
    void appendsMadeWithoutWaitingAreStoredInCallOrder() throws Exception {
        RedisSessionStore roomy = new RedisSessionStore(client, PREFIX, EXPIRY, 1000, MAX_RETAINED, false);
        String c = "dev-burst";
        get(roomy.open(c, false, 1));
        get(roomy.disconnected(c, 1));
        List<CompletableFuture<Append>> appends = new ArrayList<>();
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            sent.add("m" + i);
            appends.add(roomy.append(command(c, "m" + i)).toCompletableFuture());
        }
        CompletableFuture.allOf(appends.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        for (int i = 0; i < appends.size(); i++) {
            assertEquals(Append.stored(Integer.toString(i + 1)), appends.get(i).join(), "append " + i);
        }
        StoredSession s = get(roomy.open(c, false, 2));
        assertEquals(sent, payloads(s), "the order the calls were made in, not the order connections ran them");
    }

    @Test
    void openReturnsLongPendingListsAndDropsIdsWhoseMessageIsGone() throws Exception {
        RedisSessionStore roomy = new RedisSessionStore(client, PREFIX, EXPIRY, 2000, MAX_RETAINED, false);
        String c = "dev-long";
        get(roomy.open(c, false, 1));
        List<CompletableFuture<Append>> appends = new ArrayList<>();
        for (int i = 0; i < 1200; i++) {
            appends.add(roomy.append(command(c, "m" + i)).toCompletableFuture());
        }
        CompletableFuture.allOf(appends.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        // a message lost without its id (e.g. by an operator's HDEL)
        check.getMap(session(c) + ":messages", StringCodec.INSTANCE).fastRemove("7");

        StoredSession s = get(roomy.open(c, false, 2));
        assertEquals(1199, s.pending().size(), "more than one HMGET slice, id 7 left out");
        assertEquals("m0", payloads(s).get(0));
        assertEquals(List.of("m5", "m7"), payloads(s).subList(5, 7), "id 7 carried m6");
        assertFalse(s.pending().stream().anyMatch(m -> m.id().equals("7")));
        assertEquals("m1199", payloads(s).get(1198));
        assertEquals(1199, check.getList(session(c) + ":pending", StringCodec.INSTANCE).size(),
                "the dangling id was removed from the list");
    }

    @Test
    void aDeviceWithoutAPersistentSessionGetsNothingStored() throws Exception {
        assertEquals(Append.NO_SESSION, get(store.append(command("dev-unknown", "x"))));
        get(store.open("dev-clean", true, 1));
        assertEquals(Append.NO_SESSION, get(store.append(command("dev-clean", "x"))));
        get(store.saveSubscriptions("dev-clean", Map.of("a/b", Subscription.ofQos(1))));
        get(store.remove("dev-unknown", "1"));
        get(store.disconnected("dev-unknown", 1));
        assertEquals(0, check.getKeys().count(), "nothing written for devices without a session");
    }

    // --- subscriptions ---------------------------------------------------------------------------------------

    @Test
    void subscriptionsRoundTripInSubscriptionOrder() throws Exception {
        String c = "dev-s";
        get(store.open(c, false, 1));
        Map<String, Subscription> subs = new LinkedHashMap<>();
        subs.put("zeta/#", Subscription.ofQos(1));
        subs.put("devices/dev-s/commands", Subscription.ofQos(2));
        subs.put("alpha/+/x", Subscription.ofQos(0));
        subs.put("fleet/ünï/+", Subscription.ofQos(1));
        get(store.saveSubscriptions(c, subs));
        StoredSession s = get(store.open(c, false, 2));
        assertEquals(new ArrayList<>(subs.entrySet()), new ArrayList<>(s.subscriptions().entrySet()));

        Map<String, Subscription> fewer = new LinkedHashMap<>();
        fewer.put("alpha/+/x", Subscription.ofQos(1));
        get(store.saveSubscriptions(c, fewer));
        assertEquals(fewer, get(store.open(c, false, 3)).subscriptions());

        get(store.saveSubscriptions(c, Map.of()));
        assertTrue(get(store.open(c, false, 4)).subscriptions().isEmpty());
    }

    @Test
    void mqtt5SubscriptionOptionsRoundTripBesideQosOnlyOnes() throws Exception {
        String c = "dev-opts";
        get(store.open(c, false, 1));
        Map<String, Subscription> subs = new LinkedHashMap<>();
        subs.put("devices/dev-opts/commands", Subscription.of(1, true, 2, 77));
        subs.put("fleet/#", Subscription.ofQos(0));
        get(store.saveSubscriptions(c, subs));
        assertEquals(new ArrayList<>(subs.entrySet()),
                new ArrayList<>(get(store.open(c, false, 2)).subscriptions().entrySet()));
    }

    @Test
    void subscriptionSavesOfOneClientReachRedisInTheOrderMade() throws Exception {
        String c = "dev-order";
        get(store.open(c, false, 1));
        List<CompletableFuture<Void>> saves = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            saves.add(store.saveSubscriptions(c, Map.of("t/" + i, Subscription.ofQos(1))).toCompletableFuture());
        }
        CompletableFuture.allOf(saves.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
        assertEquals(Map.of("t/49", Subscription.ofQos(1)), get(store.open(c, false, 2)).subscriptions());
    }

    // --- retained messages -----------------------------------------------------------------------------------

    @Test
    void aRetainedMessageIsStoredOverwrittenAndDeletedByAnEmptyPayload() throws Exception {
        get(store.retain(retained("fleet/a/config", "v1")));
        assertEquals(List.of("v1"), get(store.retained("fleet/a/config")).stream()
                .map(m -> new String(m.payload(), StandardCharsets.UTF_8)).toList());
        DownlinkMessage stored = get(store.retained("fleet/a/config")).get(0);
        assertTrue(stored.retain());
        assertEquals(1, stored.qos());

        get(store.retain(retained("fleet/a/config", "v2")));
        assertEquals(List.of("v2"), get(store.retained("fleet/a/config")).stream()
                .map(m -> new String(m.payload(), StandardCharsets.UTF_8)).toList());

        get(store.retain(retained("fleet/a/config", "")));
        assertTrue(get(store.retained("fleet/a/config")).isEmpty());
        assertTrue(get(store.retained("#")).isEmpty());
        get(store.retain(retained("never/stored", ""))); // deleting what is not there is fine
    }

    @Test
    void retainsOfOneTopicMadeWithoutWaitingLeaveTheLastOne() throws Exception {
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            writes.add(store.retain(retained("fleet/all/config", "v" + i)).toCompletableFuture());
        }
        CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        assertEquals("v99", new String(get(store.retained("fleet/all/config")).get(0).payload(),
                StandardCharsets.UTF_8));
    }

    @Test
    void anExactFilterFindsTopicsStartingWithDollarAndWildcardsDoNot() throws Exception {
        get(store.retain(retained("$SYS/broker/uptime", "1")));
        assertEquals(Set.of("$SYS/broker/uptime"), topics(get(store.retained("$SYS/broker/uptime"))));
        assertEquals(Set.of(), topics(get(store.retained("#"))));
        assertEquals(Set.of(), topics(get(store.retained("+/broker/uptime"))));
        assertEquals(Set.of(), topics(get(store.retained("$SYS/broker/uptime/more"))));
    }

    @Test
    void retainRefusesANewTopicPastMaxRetainedButStillOverwritesAndDeletes() throws Exception {
        for (int i = 0; i < MAX_RETAINED; i++) {
            get(store.retain(retained("r/" + i, "x")));
        }
        ExecutionException refused = assertThrows(ExecutionException.class,
                () -> get(store.retain(retained("r/new", "x"))));
        assertInstanceOf(IllegalStateException.class, refused.getCause());
        assertTrue(refused.getCause().getMessage().contains("session.max-retained"), refused.getCause().getMessage());

        get(store.retain(retained("r/0", "overwritten"))); // an existing topic is not a new one
        get(store.retain(retained("r/1", "")));
        get(store.retain(retained("r/new", "x"))); // room again
        assertEquals(Set.of("r/0", "r/2", "r/3", "r/4", "r/new"), topics(get(store.retained("r/+"))));
    }

    @Test
    void wildcardFiltersAreMatchedInRedisLevelByLevel() throws Exception {
        RedisSessionStore big = new RedisSessionStore(client, PREFIX, EXPIRY, MAX_PENDING, 100, false);
        List<String> all = List.of("fleet/a/config", "fleet/b/config", "fleet/a/status", "fleet", "fleet/a/b/config",
                "fleetX/a/config", "fleet//config", "$SYS/broker/uptime", "$internal/x", "other/x", "/leading");
        for (String t : all) {
            get(big.retain(retained(t, t)));
        }
        assertEquals(Set.of("fleet/a/config", "fleet/b/config", "fleet//config"),
                topics(get(big.retained("fleet/+/config"))));
        assertEquals(Set.of("fleet", "fleet/a/config", "fleet/b/config", "fleet/a/status", "fleet/a/b/config",
                "fleet//config"), topics(get(big.retained("fleet/#"))), "fleet/# also matches its parent");
        assertEquals(all.stream().filter(t -> !t.startsWith("$")).collect(Collectors.toSet()),
                topics(get(big.retained("#"))), "# leaves out topics starting with $");
        assertEquals(Set.of("fleet/a/config", "fleet/b/config", "fleet/a/status", "fleetX/a/config",
                "fleet//config"), topics(get(big.retained("+/+/+"))), "+ does not match $SYS either");
        assertEquals(Set.of("fleet"), topics(get(big.retained("+"))));
        assertEquals(Set.of("/leading"), topics(get(big.retained("+/leading"))));
        assertEquals(Set.of("$SYS/broker/uptime"), topics(get(big.retained("$SYS/#"))));
        assertEquals(Set.of("$SYS/broker/uptime"), topics(get(big.retained("$SYS/+/uptime"))));
        assertEquals(Set.of("fleet/a/config"), topics(get(big.retained("fleet/a/config"))), "exact topic");
        assertEquals(Set.of(), topics(get(big.retained("fleet/a"))), "a prefix is not a match");
        assertEquals(Set.of("fleet/a/b/config"), topics(get(big.retained("fleet/+/+/config"))));
    }

    @Test
    void globCharactersInTopicLevelsMatchOnlyLiterally() throws Exception {
        RedisSessionStore big = new RedisSessionStore(client, PREFIX, EXPIRY, MAX_PENDING, 100, false);
        for (String t : List.of("a*b/1", "aXb/1", "ab/1", "x?y/1", "xzy/1", "[z]/1", "z/1", "[z/1", "back\\slash/1",
                "backslash/1", "s^t/1")) {
            get(big.retain(retained(t, t)));
        }
        assertEquals(Set.of("a*b/1"), topics(get(big.retained("a*b/+"))));
        assertEquals(Set.of("a*b/1"), topics(get(big.retained("a*b/1"))));
        assertEquals(Set.of("x?y/1"), topics(get(big.retained("x?y/#"))));
        assertEquals(Set.of("[z]/1"), topics(get(big.retained("[z]/+"))));
        assertEquals(Set.of("[z/1"), topics(get(big.retained("[z/+"))));
        assertEquals(Set.of("back\\slash/1"), topics(get(big.retained("back\\slash/+"))));
        assertEquals(Set.of("s^t/1"), topics(get(big.retained("s^t/1"))));
    }

    @Test
    void aFilterMatchingThousandsOfRetainedTopicsGetsAllOfThemUpToTheLimit() throws Exception {
        RedisSessionStore big = new RedisSessionStore(client, PREFIX, EXPIRY, MAX_PENDING, 3000, false);
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int i = 0; i < 2500; i++) {
            writes.add(big.retain(retained("bulk/" + i + "/config", "x")).toCompletableFuture());
            if (i % 5 == 0) {
                writes.add(big.retain(retained("noise/" + i, "x")).toCompletableFuture());
            }
        }
        CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
        assertEquals(2500, get(big.retained("bulk/+/config")).size(), "HSCAN followed every cursor");

        RedisSessionStore limited = new RedisSessionStore(client, PREFIX, EXPIRY, MAX_PENDING, 100, false);
        assertEquals(100, get(limited.retained("bulk/#")).size(), "at most session.max-retained per filter");
    }

    // --- the business-service side --------------------------------------------------------------------------

    @Test
    void theDeviceDirectoryReadsRoutesWrittenByTheRouteStoreAndByHand() throws Exception {
        RedisDeviceDirectory directory = new RedisDeviceDirectory(check, PREFIX, MAX_PENDING);
        RedisRouteStore routes = TestRouteStores.store(TestRouteStores.settings(redis,
                "routes.redis.key-prefix", PREFIX), "node-x", TestRouteStores.meters());
        try {
            FakeNode node = new FakeNode();
            Route written = new Route("dev-r", "node-x", 42, 1_700_000_000_000L, "10.0.0.7:51234");
            node.live.put(written.clientId(), written); // the node's resync keeps only live routes
            routes.start(node);
            get(routes.put(written));
            await("route of dev-r readable", () -> directory.lookup("dev-r").toCompletableFuture()
                    .orTimeout(2, TimeUnit.SECONDS).join().isPresent(), 10);
            assertEquals(Optional.of(written), get(directory.lookup("dev-r")));
        } finally {
            routes.close().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }

        // the documented layout: HSET P:route:{clientId} node epoch connected_at remote
        check.<String, String>getMap(PREFIX + ":route:{dev-h}", StringCodec.INSTANCE).putAll(Map.of("node", "node-y",
                "epoch", "7", "connected_at", "123", "remote", "192.0.2.1:1883"));
        assertEquals(Optional.of(new Route("dev-h", "node-y", 7, 123, "192.0.2.1:1883")),
                get(directory.lookup("dev-h")));
        assertEquals(Optional.empty(), get(directory.lookup("dev-nowhere")));
    }

    @Test
    void theDeviceDirectoryQueuesForOfflinePersistentSessionsOnly() throws Exception {
        RedisDeviceDirectory directory = new RedisDeviceDirectory(check, PREFIX, 2);
        assertEquals(Append.NO_SESSION, get(directory.storeOffline(command("dev-d", "x"))));
        assertThrows(IllegalArgumentException.class, () -> directory.storeOffline(new DownlinkMessage("dev-d",
                "devices/dev-d/commands", 0, false, new byte[] {1})));

        get(store.open("dev-d", false, 1));
        get(store.disconnected("dev-d", 1));
        assertEquals(Append.stored("1"), get(directory.storeOffline(command("dev-d", "a"))));
        assertEquals(Append.stored("2"), get(directory.storeOffline(command("dev-d", "b"))));
        assertEquals(Append.FULL, get(directory.storeOffline(command("dev-d", "c"))), "its max-pending is 2");
        assertEquals(List.of("a", "b"), payloads(get(store.open("dev-d", false, 2))));
    }

    @Test
    void mqtt5ExpiryZeroDeletesAtDisconnectAndACleanStartWithAnExpiryKeepsANewSession() throws Exception {
        get(store.open("dev-5z", false, 0, 1));
        get(store.disconnected("dev-5z", 1, 0));
        assertFalse(get(store.open("dev-5z", false, 60_000, 2)).present(), "deleted at disconnect");
        get(store.disconnected("dev-5z", 2, 60_000));
        StoredSession fresh = get(store.open("dev-5z", true, 60_000, 3));
        assertFalse(fresh.present(), "clean start discarded it");
        get(store.disconnected("dev-5z", 3, 60_000));
        assertTrue(get(store.open("dev-5z", false, 60_000, 4)).present(), "and kept the new one");
    }

    @Test
    void mqtt5SessionExpiresAtItsOwnShorterInterval() throws Exception {
        get(store.open("dev-5s", false, 200, 1));
        get(store.disconnected("dev-5s", 1, 200));
        Thread.sleep(400);
        assertFalse(get(store.open("dev-5s", false, 200, 2)).present());
    }
}
