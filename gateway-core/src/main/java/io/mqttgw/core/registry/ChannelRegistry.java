package io.mqttgw.core.registry;

import io.netty.channel.Channel;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Client id to channel for the sessions open on this node. A power-of-two array of {@link ConcurrentHashMap}s,
 * the shard chosen by a well-mixed hash of the client id, so connect and disconnect storms spread over shards and
 * resizes stay small. Thread-safe; called from every event loop.
 */
public final class ChannelRegistry {
    private final ConcurrentHashMap<String, Channel>[] shards;
    private final int mask;

    @SuppressWarnings("unchecked")
    public ChannelRegistry(int shardCount) {
        if (shardCount <= 0 || Integer.bitCount(shardCount) != 1) {
            throw new IllegalArgumentException("shardCount must be a power of two: " + shardCount);
        }
        shards = new ConcurrentHashMap[shardCount];
        for (int i = 0; i < shardCount; i++) {
            shards[i] = new ConcurrentHashMap<>(64);
        }
        mask = shardCount - 1;
    }

    /** A registry sized for this machine: four shards per core, at least 16. */
    public static ChannelRegistry forThisMachine() {
        int wanted = Math.max(16, Runtime.getRuntime().availableProcessors() * 4);
        return new ChannelRegistry(Integer.highestOneBit(wanted - 1) << 1);
    }

    private ConcurrentHashMap<String, Channel> shard(String clientId) {
        // String.hashCode is weak in its low bits for similar ids ("device-00001"...); mix before masking
        int h = clientId.hashCode();
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return shards[h & mask];
    }

    /** Registers {@code channel} for {@code clientId}; returns the channel it replaced (to be closed), or null. */
    public Channel register(String clientId, Channel channel) {
        Channel previous = shard(clientId).put(clientId, channel);
        return previous == channel ? null : previous;
    }

    /** Removes the entry only if it still holds {@code channel}: a kicked connection never removes its successor. */
    public boolean remove(String clientId, Channel channel) {
        return shard(clientId).remove(clientId, channel);
    }

    public Channel find(String clientId) {
        return shard(clientId).get(clientId);
    }

    public long size() {
        long n = 0;
        for (ConcurrentHashMap<String, Channel> s : shards) {
            n += s.mappingCount();
        }
        return n;
    }

    /** Visits every registered channel; weakly consistent with concurrent changes. */
    public void forEach(Consumer<Channel> action) {
        for (ConcurrentHashMap<String, Channel> s : shards) {
            s.values().forEach(action);
        }
    }
}
