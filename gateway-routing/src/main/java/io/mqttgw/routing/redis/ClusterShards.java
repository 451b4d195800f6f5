package io.mqttgw.routing.redis;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisClusterMaster;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.cluster.ClusterSlotRange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which Redis Cluster shard (master and its replicas) holds a key, so that the flusher sends one pipeline per shard
 * and a shard that fails over holds up only its own devices. The slot is computed here as Redis does (CRC16 of the
 * key or its hash tag, modulo 16384); which shard serves which slots is read with CLUSTER SLOTS when first needed and
 * again after a pipeline failed (a failover moves slots to another address). A stale map costs only independence,
 * never correctness: Redisson routes every command by its own view. Outside Redis Cluster everything is one shard.
 * Called by the flusher thread; an answer replaces the map from the client's threads.
 */
final class ClusterShards {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterShards.class);
    static final int SLOTS = 16384;
    private static final String ONE = "";
    private static final long MIN_REFRESH_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final RedissonClient client;
    private final boolean cluster;
    private final long timeoutMillis;
    /** The shard name per slot (the sorted addresses that serve it), null until read; set by the client's threads. */
    private volatile String[] owners;
    private boolean stale = true;
    private long lastRefreshNanos = System.nanoTime() - MIN_REFRESH_NANOS;

    ClusterShards(RedissonClient client, long timeoutMillis) {
        this.client = client;
        this.cluster = client.getConfig().isClusterConfig();
        this.timeoutMillis = timeoutMillis;
    }

    /** Whether the slot map was read: outside Cluster (or before) every key is in one shard. */
    boolean mapped() {
        return owners != null;
    }

    /** The shard of a key; before the map was read (or outside Cluster) one name for all. */
    String shardOf(String key) {
        String[] o = owners;
        if (o == null) {
            return ONE;
        }
        String owner = o[slot(key)];
        return owner == null ? ONE : owner;
    }

    /** A pipeline failed: the slots may have moved; ask for the map again (at most each second). */
    void markStale() {
        stale = cluster;
    }

    /**
     * Asks every master for the slot map if it is stale and Redis answered before (a lazily connecting client would
     * otherwise connect here), without waiting: the first answer replaces the map, the flusher's next sends use it.
     * A master that is down answers with an error, and the old map stays meanwhile.
     */
    void refreshIfStale(boolean connected) {
        if (!cluster || !stale || !connected || System.nanoTime() - lastRefreshNanos < MIN_REFRESH_NANOS) {
            return;
        }
        lastRefreshNanos = System.nanoTime();
        stale = false;
        AtomicBoolean applied = new AtomicBoolean();
        for (RedisClusterMaster master : client.getRedisNodes(RedisNodes.CLUSTER).getMasters()) {
            master.clusterSlotsAsync().toCompletableFuture().orTimeout(timeoutMillis, TimeUnit.MILLISECONDS)
                    .whenComplete((slots, error) -> {
                        if (error != null) {
                            LOG.debug("CLUSTER SLOTS on {} failed: {}", master.getAddr(), error.toString());
                            return;
                        }
                        if (applied.compareAndSet(false, true)) {
                            owners = map(slots);
                        }
                    });
        }
    }

    private static String[] map(Map<ClusterSlotRange, Set<String>> slots) {
        String[] map = new String[SLOTS];
        for (Map.Entry<ClusterSlotRange, Set<String>> e : slots.entrySet()) {
            String name = String.join(",", new TreeSet<>(e.getValue()));
            for (int s = e.getKey().getStartSlot(); s <= e.getKey().getEndSlot() && s < SLOTS; s++) {
                map[s] = name;
            }
        }
        return map;
    }

    /** The cluster slot of a key (CRC16-XMODEM of the key, or of its first non-empty {hash tag}). */
    static int slot(String key) {
        byte[] b = key.getBytes(StandardCharsets.UTF_8);
        int from = 0;
        int to = b.length;
        for (int i = 0; i < b.length; i++) {
            if (b[i] == '{') {
                for (int j = i + 1; j < b.length; j++) {
                    if (b[j] == '}') {
                        if (j > i + 1) {
                            from = i + 1;
                            to = j;
                        }
                        break;
                    }
                }
                break;
            }
        }
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (b[i] & 0xff) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            crc &= 0xffff;
        }
        return crc & (SLOTS - 1);
    }
}
