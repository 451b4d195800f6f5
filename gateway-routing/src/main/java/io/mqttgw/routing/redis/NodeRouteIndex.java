package io.mqttgw.routing.redis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.ScoredEntry;

/**
 * Reads a node's route index (client id and epoch of every route it wrote) in chunks of at most {@code chunk}
 * entries, from where a {@link Cursor} the caller keeps says. Outside Redis Cluster the index is one sorted set,
 * {@link RouteKeys#nodeRoutes}, paged by epoch. In Cluster it is that key first (nodes of earlier versions wrote
 * there, so it holds a dead old node's routes, or this node's from before an upgrade, until they are removed), then
 * one sorted set per slot ({@link RouteKeys#nodeSlotRoutes}), read in windows of consecutive slots, one pipeline
 * per window (Redisson sends it to the shards that serve them). The window widens while its slots hold few entries
 * (a node's 250,000 routes are about 15 per slot) and narrows when they hold many; each slot is read with a limit,
 * and a slot that fills it is read on alone, a chunk at a time, from its last epoch, so no read holds more than a
 * few chunks' entries. A full read asks every slot: 16,384 commands even for an empty index.
 *
 * <p>Stateless apart from the caller's cursor, an immutable value: a chunk whose work failed is read again from
 * the cursor the caller still has. {@link #readAsync} for the flusher thread's resync and dead-node cleanup, which do
 * not wait for Redis; {@link #read} waits (bounded by the route timeout), for the shutdown's clean-up on the flusher
 * thread and for the route check's own thread. Each caller keeps its own cursor.
 */
final class NodeRouteIndex {
    /** Slots per window at the start and at most; at least one. */
    static final int FIRST_WINDOW = 16;
    static final int MAX_WINDOW = 1024;
    /** A slot's read limit never goes below this, however wide the window. */
    private static final int MIN_SLOT_LIMIT = 16;

    /** One entry; {@code legacy} when read from the single index of Cluster nodes of earlier versions. */
    record Entry(String clientId, long epoch, boolean legacy) {
    }

    /**
     * Where a read stands: the single key until {@code legacyDone}, then {@code slot} (Cluster), from after the
     * epoch {@code after} of the key being read; {@code window} slots per pipeline next.
     */
    record Cursor(String node, boolean legacyDone, int slot, double after, int window) {
        /** Whether every entry was read. */
        boolean done() {
            return legacyDone && slot >= ClusterShards.SLOTS;
        }
    }

    /** Entries read and the cursor after them, to keep once they are handled. */
    record Chunk(List<Entry> entries, Cursor next) {
        /** Nothing was read and nothing is left: the whole index was read. */
        boolean end() {
            return entries.isEmpty() && next.done();
        }
    }

    private final RedissonClient client;
    private final RouteKeys keys;
    private final RouteBatches batches;
    private final int chunk;

    NodeRouteIndex(RedissonClient client, RouteKeys keys, RouteBatches batches, int chunk) {
        this.client = client;
        this.keys = keys;
        this.batches = batches;
        this.chunk = chunk;
    }

    /** A cursor at the start of {@code node}'s index. */
    Cursor start(String node) {
        return new Cursor(node, false, 0, Double.NEGATIVE_INFINITY, FIRST_WINDOW);
    }

    /**
     * The next entries from {@code at}: a chunk of the single key, or of one window of slots. A window of empty
     * slots answers no entries with a cursor further on ({@link Chunk#end} false): one pipeline per call, so a caller
     * between flushes holds them up no longer than one read.
     */
    Chunk read(Cursor at) throws Exception {
        return batches.await(readAsync(at));
    }

    /** {@link #read} without waiting: the chunk when Redis answered (built on the client's thread, from the answer). */
    CompletableFuture<Chunk> readAsync(Cursor at) {
        if (at.done()) {
            return CompletableFuture.completedFuture(new Chunk(List.of(), at));
        }
        if (!at.legacyDone()) {
            // outside Cluster the single key is the whole index
            return page(keys.nodeRoutes(at.node()), at.after(), true).thenApply(entries -> new Chunk(entries,
                    entries.isEmpty()
                            ? new Cursor(at.node(), true, batches.cluster() ? 0 : ClusterShards.SLOTS,
                                    Double.NEGATIVE_INFINITY, at.window())
                            : new Cursor(at.node(), false, at.slot(), entries.get(entries.size() - 1).epoch(),
                                    at.window())));
        }
        if (at.after() != Double.NEGATIVE_INFINITY) {
            // the rest of a slot that held more than its share of a window, alone, a chunk at a time
            return page(keys.nodeSlotRoutes(at.node(), at.slot()), at.after(), false).thenApply(entries -> new Chunk(
                    entries, entries.size() == chunk
                            ? new Cursor(at.node(), true, at.slot(), entries.get(entries.size() - 1).epoch(),
                                    at.window())
                            : new Cursor(at.node(), true, at.slot() + 1, Double.NEGATIVE_INFINITY, at.window())));
        }
        return readWindow(at);
    }

    /** Up to a chunk of one key's entries, from after the epoch {@code after}. */
    private CompletableFuture<List<Entry>> page(String key, double after, boolean legacy) {
        return client.<String>getScoredSortedSet(key, StringCodec.INSTANCE)
                .entryRangeAsync(after, false, Double.POSITIVE_INFINITY, true, 0, chunk).toCompletableFuture()
                .thenApply(read -> entries(read, legacy));
    }

    /** The slots {@code at.slot()} on, {@code at.window()} of them, in one pipeline. */
    private CompletableFuture<Chunk> readWindow(Cursor at) {
        int end = Math.min(ClusterShards.SLOTS, at.slot() + at.window());
        int limit = Math.min(chunk, Math.max(MIN_SLOT_LIMIT, 4 * chunk / at.window()));
        RBatch batch = batches.create();
        List<RFuture<Collection<ScoredEntry<String>>>> slots = new ArrayList<>(end - at.slot());
        for (int s = at.slot(); s < end; s++) {
            slots.add(batch.<String>getScoredSortedSet(keys.nodeSlotRoutes(at.node(), s), StringCodec.INSTANCE)
                    .entryRangeAsync(Double.NEGATIVE_INFINITY, false, Double.POSITIVE_INFINITY, true, 0, limit));
        }
        return batch.executeAsync().toCompletableFuture().thenApply(answered -> window(at, end, limit, slots));
    }

    /** The chunk a window's answers make. */
    private Chunk window(Cursor at, int end, int limit, List<RFuture<Collection<ScoredEntry<String>>>> slots) {
        List<Entry> out = new ArrayList<>();
        int read = 0;
        for (int i = 0; i < slots.size(); i++) {
            int s = at.slot() + i;
            List<Entry> slot = entries(RouteBatches.result(slots.get(i)), false);
            read += slot.size();
            if (!out.isEmpty() && out.size() + slot.size() > chunk) {
                // the chunk is full: the next window starts with this slot
                return new Chunk(out, new Cursor(at.node(), true, s, Double.NEGATIVE_INFINITY, narrower(at, read)));
            }
            out.addAll(slot);
            if (slot.size() == limit) {
                // the slot may hold more: the next call reads it on from its last epoch
                return new Chunk(out, new Cursor(at.node(), true, s, slot.get(slot.size() - 1).epoch(),
                        at.window()));
            }
        }
        int window = read < chunk / 2 ? Math.min(MAX_WINDOW, at.window() * 2) : at.window();
        return new Chunk(out, new Cursor(at.node(), true, end, Double.NEGATIVE_INFINITY, window));
    }

    /** The window after one that stopped early: half as wide if it read more than a chunk. */
    private int narrower(Cursor at, int read) {
        return read > chunk ? Math.max(1, at.window() / 2) : at.window();
    }

    private static List<Entry> entries(Collection<ScoredEntry<String>> read, boolean legacy) {
        List<Entry> entries = new ArrayList<>(read.size());
        for (ScoredEntry<String> e : read) {
            entries.add(new Entry(e.getValue(), (long) e.getScore().doubleValue(), legacy));
        }
        return entries;
    }
}
