package io.mqttgw.core.defaults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.SessionStore.StoredSession;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class InMemorySessionStoreTest {
    private final AtomicLong clock = new AtomicLong(1_000);

    private static boolean present(InMemorySessionStore store, String id, long epoch) {
        StoredSession s = store.open(id, false, epoch).toCompletableFuture().join();
        return s.present();
    }

    @Test
    void evictsTheLongestDisconnectedSessionWhenANewOneWouldPassTheBound() {
        InMemorySessionStore store = new InMemorySessionStore(60_000, 10, 10, 3, clock::get);
        for (int i = 0; i < 3; i++) {
            assertFalse(present(store, "d" + i, i));
        }
        // disconnect order d1, d0, d2: d1 is the oldest disconnected
        store.disconnected("d1", 1);
        clock.addAndGet(10);
        store.disconnected("d0", 0);
        clock.addAndGet(10);
        store.disconnected("d2", 2);

        assertFalse(present(store, "new-1", 10));
        assertEquals(3, store.sessions());
        assertEquals(1, store.evictedCount());
        assertTrue(present(store, "d0", 11), "d0 was kept");
        assertTrue(present(store, "d2", 12), "d2 was kept");
        assertEquals(3, store.sessions());
    }

    @Test
    void neverEvictsTheSessionOfAConnectedDevice() {
        InMemorySessionStore store = new InMemorySessionStore(60_000, 10, 10, 2, clock::get);
        assertFalse(present(store, "a", 1));
        assertFalse(present(store, "b", 2));
        store.disconnected("a", 1);
        // a reconnects: no longer evictable
        assertTrue(present(store, "a", 3));
        assertFalse(present(store, "c", 4));
        assertEquals(3, store.sessions(), "all connected: kept beyond the bound rather than dropping a live one");
        assertEquals(0, store.evictedCount());
        store.disconnected("b", 2);
        assertFalse(present(store, "d", 5));
        assertEquals(1, store.evictedCount());
        assertFalse(present(store, "b", 6), "b, the only disconnected one, was evicted");
    }

    @Test
    void aFloodOfNewIdsStaysAtTheBound() {
        InMemorySessionStore store = new InMemorySessionStore(60_000, 10, 10, 100, clock::get);
        for (int i = 0; i < 10_000; i++) {
            present(store, "flood-" + i, i);
            store.disconnected("flood-" + i, i);
            clock.incrementAndGet();
        }
        assertEquals(100, store.sessions());
        assertEquals(9_900, store.evictedCount());
        assertTrue(present(store, "flood-9999", 20_000), "the newest survive");
        assertFalse(present(store, "flood-0", 20_001), "the oldest went first");
    }

    @Test
    void removesExpiredSessionsFromTheHeadOfTheDisconnectOrder() {
        InMemorySessionStore store = new InMemorySessionStore(1_000, 10, 10, 1_000, clock::get);
        for (int i = 0; i < 4; i++) {
            present(store, "e" + i, i);
            store.disconnected("e" + i, i);
        }
        clock.addAndGet(2_000);
        present(store, "fresh", 9);
        assertEquals(1, store.sessions(), "expired sessions are gone without a full scan");
        assertEquals(0, store.evictedCount(), "expiry is not eviction");
    }

    @Test
    void aCleanSessionForgetsTheDisconnectOrderEntry() {
        InMemorySessionStore store = new InMemorySessionStore(60_000, 10, 10, 1, clock::get);
        present(store, "x", 1);
        store.disconnected("x", 1);
        store.open("x", true, 2).toCompletableFuture().join();
        assertEquals(0, store.sessions());
        assertFalse(present(store, "y", 3));
        assertEquals(0, store.evictedCount());
    }

    @Test
    void wildcardSubscribeGetsTheRetainedMessagesOfItsBranchFromTheTopicTree() throws Exception {
        InMemorySessionStore store = new InMemorySessionStore(60_000, 10, 3, System::currentTimeMillis);
        for (String topic : java.util.List.of("fleet/a/fw", "fleet/b/fw", "other/a/fw")) {
            store.retain(new io.mqttgw.core.spi.DownlinkMessage("c", topic, 1, true,
                    topic.getBytes(StandardCharsets.UTF_8)))
                    .toCompletableFuture().get();
        }
        assertTrue(store.retain(new io.mqttgw.core.spi.DownlinkMessage("c", "fourth", 1, true, new byte[1]))
                .toCompletableFuture().isCompletedExceptionally(), "session.max-retained bounds new topics");
        var got = store.retained("fleet/+/fw").toCompletableFuture().get().stream()
                .map(io.mqttgw.core.spi.DownlinkMessage::topic).sorted().toList();
        assertEquals(java.util.List.of("fleet/a/fw", "fleet/b/fw"), got);
        store.retain(new io.mqttgw.core.spi.DownlinkMessage("c", "fleet/a/fw", 1, true, new byte[0]));
        assertEquals(2, store.retainedCount(), "an empty payload deletes");
        assertEquals(1, store.retained("fleet/#").toCompletableFuture().get().size());
    }

    @Test
    void keepsSubscriptionsWithTheirOptionsInSubscriptionOrder() {
        InMemorySessionStore store = new InMemorySessionStore(60_000, 10, 10, 10, System::currentTimeMillis);
        store.open("dev-1", false, 1).toCompletableFuture().join();
        java.util.Map<String, io.mqttgw.core.spi.Subscription> subs = new java.util.LinkedHashMap<>();
        subs.put("z/#", io.mqttgw.core.spi.Subscription.of(2, true, 1, 9));
        subs.put("a/+", io.mqttgw.core.spi.Subscription.ofQos(1));
        subs.put("m/x", io.mqttgw.core.spi.Subscription.ofQos(0));
        store.saveSubscriptions("dev-1", subs).toCompletableFuture().join();
        StoredSession back = store.open("dev-1", false, 2).toCompletableFuture().join();
        org.junit.jupiter.api.Assertions.assertEquals(new java.util.ArrayList<>(subs.entrySet()),
                new java.util.ArrayList<>(back.subscriptions().entrySet()));
    }

    @Test
    void aSessionExpiresAtTheIntervalItsDeviceAskedFor() {
        InMemorySessionStore store = new InMemorySessionStore(60_000, 10, 10, clock::get);
        store.open("short", false, 5_000, 1).toCompletableFuture().join();
        store.disconnected("short", 1, 5_000);
        clock.addAndGet(4_999);
        assertTrue(store.open("short", false, 5_000, 2).toCompletableFuture().join().present());
        store.disconnected("short", 2, 5_000);
        clock.addAndGet(5_000);
        assertFalse(store.open("short", false, 5_000, 3).toCompletableFuture().join().present());
    }

    @Test
    void anIntervalAboveSessionExpiryIsCapped() {
        InMemorySessionStore store = new InMemorySessionStore(60_000, 10, 10, clock::get);
        store.open("long", false, Long.MAX_VALUE, 1).toCompletableFuture().join();
        store.disconnected("long", 1, 3_600_000);
        clock.addAndGet(60_000);
        assertFalse(store.open("long", false, 3_600_000, 2).toCompletableFuture().join().present());
    }

    @Test
    void expiryZeroDeletesTheSessionAtDisconnect() {
        InMemorySessionStore store = new InMemorySessionStore(60_000, 10, 10, clock::get);
        store.open("zero", false, 0, 1).toCompletableFuture().join();
        store.disconnected("zero", 1, 0);
        assertEquals(0, store.sessions());
    }

    @Test
    void aCleanStartWithAnExpiryDiscardsTheOldSessionAndKeepsANewOne() {
        InMemorySessionStore store = new InMemorySessionStore(60_000, 10, 10, clock::get);
        store.open("c", false, 60_000, 1).toCompletableFuture().join();
        store.saveSubscriptions("c", java.util.Map.of("a/b", io.mqttgw.core.spi.Subscription.ofQos(1)));
        StoredSession fresh = store.open("c", true, 60_000, 2).toCompletableFuture().join();
        assertFalse(fresh.present());
        assertTrue(fresh.subscriptions().isEmpty());
        assertEquals(1, store.sessions(), "kept for its expiry");
        assertEquals(StoredSession.NONE, store.open("c", true, 0, 3).toCompletableFuture().join());
        assertEquals(0, store.sessions());
    }
}
