package io.mqttgw.core.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ChannelRegistryTest {
    private final List<EmbeddedChannel> channels = new ArrayList<>();

    private Channel channel() {
        EmbeddedChannel ch = new EmbeddedChannel();
        channels.add(ch);
        return ch;
    }

    @AfterEach
    void finish() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    @Test
    void registerReturnsThePreviousChannel() {
        ChannelRegistry registry = new ChannelRegistry(16);
        Channel first = channel();
        Channel second = channel();

        assertNull(registry.register("dev-1", first));
        assertSame(first, registry.register("dev-1", second), "the older channel, to be closed");
        assertSame(second, registry.find("dev-1"));
        assertEquals(1, registry.size());
    }

    @Test
    void registeringTheSameChannelAgainReturnsNothingToClose() {
        ChannelRegistry registry = new ChannelRegistry(16);
        Channel ch = channel();
        registry.register("dev-1", ch);
        assertNull(registry.register("dev-1", ch));
        assertEquals(1, registry.size());
    }

    @Test
    void kicksOlderChannelOnSameClientIdWithoutLosingTheNewerEntry() {
        ChannelRegistry registry = new ChannelRegistry(16);
        Channel older = channel();
        Channel newer = channel();
        registry.register("dev-1", older);
        registry.register("dev-1", newer);

        assertFalse(registry.remove("dev-1", older), "the kicked channel's close does not remove its successor");
        assertSame(newer, registry.find("dev-1"));

        assertTrue(registry.remove("dev-1", newer));
        assertNull(registry.find("dev-1"));
        assertEquals(0, registry.size());
    }

    @Test
    void removeOfAnUnknownClientIdIsFalse() {
        ChannelRegistry registry = new ChannelRegistry(16);
        assertFalse(registry.remove("nobody", channel()));
    }

    @Test
    void countsEntriesAcrossShards() {
        ChannelRegistry registry = new ChannelRegistry(8);
        Channel ch = channel();
        for (int i = 0; i < 1000; i++) {
            registry.register(String.format(Locale.ROOT, "device-%05d", i), ch);
        }
        assertEquals(1000, registry.size());
        for (int i = 0; i < 1000; i += 2) {
            registry.remove(String.format(Locale.ROOT, "device-%05d", i), ch);
        }
        assertEquals(500, registry.size());
        assertNull(registry.find("device-00000"));
        assertSame(ch, registry.find("device-00001"));
    }

    @Test
    void forEachVisitsEveryRegistration() {
        ChannelRegistry registry = new ChannelRegistry(4);
        Channel a = channel();
        Channel b = channel();
        registry.register("x", a);
        registry.register("y", b);
        registry.register("z", a);

        Map<Channel, Integer> seen = new IdentityHashMap<>();
        registry.forEach(c -> seen.merge(c, 1, Integer::sum));
        assertEquals(Map.of(a, 2, b, 1), Map.copyOf(seen));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, -16, 3, 6, 12, 100})
    void rejectsAShardCountThatIsNotAPositivePowerOfTwo(int shards) {
        assertThrows(IllegalArgumentException.class, () -> new ChannelRegistry(shards));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 64, 1024})
    void acceptsPowerOfTwoShardCounts(int shards) {
        ChannelRegistry registry = new ChannelRegistry(shards);
        Channel ch = channel();
        registry.register("a", ch);
        assertSame(ch, registry.find("a"));
    }

    @Test
    void forThisMachineWorks() {
        ChannelRegistry registry = ChannelRegistry.forThisMachine();
        Channel ch = channel();
        assertNull(registry.register("a", ch));
        assertSame(ch, registry.find("a"));
    }

    @Test
    void concurrentRegistrationFromSeveralThreadsEndsWithTheRightSize() throws Exception {
        ChannelRegistry registry = new ChannelRegistry(16);
        int threads = 8;
        int perThread = 5000;
        Channel[] owners = new Channel[threads];
        for (int t = 0; t < threads; t++) {
            owners[t] = channel();
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> kicked = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                kicked.add(pool.submit(() -> {
                    start.await();
                    int replaced = 0;
                    for (int i = 0; i < perThread; i++) {
                        registry.register("own-" + thread + "-" + i, owners[thread]);
                        // every thread also fights over a shared set of ids
                        if (registry.register("shared-" + (i % 100), owners[thread]) != null) {
                            replaced++;
                        }
                    }
                    return replaced;
                }));
            }
            start.countDown();
            int totalKicked = 0;
            for (Future<Integer> f : kicked) {
                totalKicked += f.get(10, TimeUnit.SECONDS);
            }
            assertEquals((long) threads * perThread + 100, registry.size());
            // every shared registration but the first of each id replaced some channel (possibly its own thread's,
            // which register() reports as nothing to close)
            assertTrue(totalKicked <= threads * perThread - 100);
            for (int t = 0; t < threads; t++) {
                assertSame(owners[t], registry.find("own-" + t + "-" + (perThread - 1)));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void concurrentRemovalOnlyRemovesOwnEntries() throws Exception {
        ChannelRegistry registry = new ChannelRegistry(16);
        Channel older = channel();
        Channel newer = channel();
        for (int i = 0; i < 2000; i++) {
            registry.register("d" + i, older);
        }
        Thread takeover = new Thread(() -> {
            for (int i = 0; i < 2000; i++) {
                registry.register("d" + i, newer);
            }
        });
        Thread cleanup = new Thread(() -> {
            for (int i = 0; i < 2000; i++) {
                registry.remove("d" + i, older);
            }
        });
        takeover.start();
        cleanup.start();
        takeover.join(5000);
        cleanup.join(5000);

        assertEquals(2000, registry.size(), "every id ends with the newer channel, whatever the interleaving");
        registry.forEach(c -> assertSame(newer, c));
    }

    @Test
    void pagesThroughIdsInOrderWithinAPrefixAndContinuesAfterTheCursor() {
        ChannelRegistry registry = new ChannelRegistry(4, true);
        for (String id : new String[] {"b-2", "a-1", "b-1", "b-3", "c-1", "b"}) {
            registry.register(id, channel());
        }
        ChannelRegistry.Page first = registry.page("b-", null, 2);
        assertEquals(List.of("b-1", "b-2"), first.ids());
        assertEquals("b-2", first.next());
        ChannelRegistry.Page last = registry.page("b-", first.next(), 2);
        assertEquals(List.of("b-3"), last.ids());
        assertNull(last.next());
        assertEquals(List.of("a-1", "b", "b-1", "b-2", "b-3", "c-1"), registry.page("", null, 10).ids());
        // a cursor before the prefix starts at the prefix; a page exactly full says there is nothing more
        assertEquals(List.of("b-1", "b-2", "b-3"), registry.page("b-", "a", 3).ids());
        assertNull(registry.page("b-", "a", 3).next());
    }

    @Test
    void keepsTheOrderedIdsInStepWithRegistrationsTakeoversAndRemovals() {
        ChannelRegistry registry = new ChannelRegistry(4, true);
        Channel first = channel();
        Channel second = channel();
        registry.register("dev", first);
        assertNotNullReplaced(registry.register("dev", second, (holder, newcomer) -> true));
        assertFalse(registry.remove("dev", first), "the replaced channel does not remove its successor");
        assertEquals(List.of("dev"), registry.page("", null, 10).ids());
        assertTrue(registry.remove("dev", second));
        assertEquals(List.of(), registry.page("", null, 10).ids());
        registry.register("dev", first, (holder, newcomer) -> true);
        assertEquals(List.of("dev"), registry.page("", null, 10).ids());
    }

    private static void assertNotNullReplaced(ChannelRegistry.Registration r) {
        assertTrue(r.registered());
        assertTrue(r.replaced() != null);
    }

    @Test
    void refusesToPageWhenNotOrdered() {
        assertThrows(IllegalStateException.class, () -> new ChannelRegistry(4).page("", null, 1));
    }
}
