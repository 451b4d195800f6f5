package io.mqttgw.core.registry;

import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.function.BiFunction;
import java.util.function.BiPredicate;
import java.util.function.Consumer;

/**
 * Client id to channel for the sessions open on this node. A power-of-two array of {@link ConcurrentHashMap}s,
 * the shard chosen by a well-mixed hash of the client id, so connect and disconnect storms spread over shards and
 * resizes stay small. Thread-safe; called from every event loop.
 *
 * <p>With {@code ordered}, the client ids are also kept in a sorted set, so the operator API can page through them
 * ({@link #page}) at a cost independent of the number of connections. It is maintained inside the shard's bin lock,
 * in the same step as the map, so the set and the map never disagree about one id. It costs about 37 bytes per
 * connection, measured (a 24-byte skip-list node and on average half a 24-byte index node; the id string is shared
 * with the map, whose own entry costs about 39), which is why it exists only when operations are configured.
 */
public final class ChannelRegistry {
    private final ConcurrentHashMap<String, Channel>[] shards;
    private final int mask;
    /** The registered client ids in order, or null when paging is not needed. */
    private final NavigableSet<String> ordered;

    public ChannelRegistry(int shardCount) {
        this(shardCount, false);
    }

    @SuppressWarnings("unchecked")
    public ChannelRegistry(int shardCount, boolean ordered) {
        if (shardCount <= 0 || Integer.bitCount(shardCount) != 1) {
            throw new IllegalArgumentException("shardCount must be a power of two: " + shardCount);
        }
        shards = new ConcurrentHashMap[shardCount];
        for (int i = 0; i < shardCount; i++) {
            shards[i] = new ConcurrentHashMap<>(64);
        }
        mask = shardCount - 1;
        this.ordered = ordered ? new ConcurrentSkipListSet<>() : null;
    }

    /** A registry sized for this machine: four shards per core, at least 16. */
    public static ChannelRegistry forThisMachine() {
        return forThisMachine(false);
    }

    /** A registry sized for this machine; with {@code ordered}, {@link #page} serves. */
    public static ChannelRegistry forThisMachine(boolean ordered) {
        int wanted = Math.max(16, Runtime.getRuntime().availableProcessors() * 4);
        return new ChannelRegistry(Integer.highestOneBit(wanted - 1) << 1, ordered);
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
        if (ordered == null) {
            Channel previous = shard(clientId).put(clientId, channel);
            return previous == channel ? null : previous;
        }
        Channel[] previous = new Channel[1];
        shard(clientId).compute(clientId, (id, holder) -> {
            previous[0] = holder;
            ordered.add(id);
            return channel;
        });
        return previous[0] == channel ? null : previous[0];
    }

    /** What a conditional {@code register} did: registered (maybe replacing a channel, to be closed), or refused. */
    public record Registration(boolean registered, Channel replaced, String refusal) {
        static final Registration NEW = new Registration(true, null, null);

        public Registration(boolean registered, Channel replaced) {
            this(registered, replaced, registered ? null : "refused");
        }
    }

    /**
     * Registers {@code channel} for {@code clientId} unless another channel holds it and {@code mayReplace} (asked
     * with the holder and the newcomer, atomically with the update) says no; then the holder stays and the answer is
     * not registered. Otherwise the answer names the replaced channel (to be closed), or none.
     */
    public Registration register(String clientId, Channel channel, BiPredicate<Channel, Channel> mayReplace) {
        return register(clientId, channel, (holder, newcomer) -> mayReplace.test(holder, newcomer) ? null : "refused",
                () -> { });
    }

    /**
     * Registers {@code channel} for {@code clientId} unless another channel holds it and {@code refusal} (asked with
     * the holder and the newcomer) names a reason to keep the holder. When registered, {@code whileRegistering} runs
     * before any other registration for the same client id can decide: what it starts (a route write, a session
     * open) is therefore started in registration order. It must only start work, never wait, as it runs under the
     * shard's bin lock. Refusal and the replaced channel are answered; the caller closes the latter.
     */
    public Registration register(String clientId, Channel channel, BiFunction<Channel, Channel, String> refusal,
                                 Runnable whileRegistering) {
        Channel[] replaced = new Channel[1];
        String[] refused = new String[1];
        shard(clientId).compute(clientId, (id, holder) -> {
            if (holder != null && holder != channel) {
                String reason = refusal.apply(holder, channel);
                if (reason != null) {
                    refused[0] = reason;
                    return holder;
                }
                replaced[0] = holder;
            }
            whileRegistering.run();
            if (ordered != null && holder == null) {
                ordered.add(id);
            }
            return channel;
        });
        if (refused[0] != null) {
            return new Registration(false, null, refused[0]);
        }
        return replaced[0] == null ? Registration.NEW : new Registration(true, replaced[0], null);
    }

    /** Removes the entry only if it still holds {@code channel}: a kicked connection never removes its successor. */
    public boolean remove(String clientId, Channel channel) {
        if (ordered == null) {
            return shard(clientId).remove(clientId, channel);
        }
        boolean[] removed = new boolean[1];
        shard(clientId).computeIfPresent(clientId, (id, holder) -> {
            if (holder != channel) {
                return holder;
            }
            removed[0] = true;
            ordered.remove(id);
            return null;
        });
        return removed[0];
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

    /** Whether {@link #page} serves (the registry keeps its ids in order). */
    public boolean pageable() {
        return ordered != null;
    }

    /**
     * One page of client ids: each of {@code prefix}, in order, after {@code after} (exclusive; null: from the first),
     * at most {@code limit}. Costs a seek plus {@code limit} steps, whatever the number of connections; weakly
     * consistent with concurrent changes. {@code next} is the id to pass as {@code after} for the following page,
     * or null after the last one.
     */
    public Page page(String prefix, String after, int limit) {
        if (ordered == null) {
            throw new IllegalStateException("registry not ordered: paging is off");
        }
        String from = after != null && after.compareTo(prefix) >= 0 ? after : prefix;
        boolean inclusive = after == null || after.compareTo(prefix) < 0;
        List<String> ids = new ArrayList<>(Math.min(limit, 64));
        for (String id : ordered.tailSet(from, inclusive)) {
            if (!id.startsWith(prefix)) {
                break;
            }
            if (ids.size() == limit) {
                return new Page(ids, ids.get(ids.size() - 1));
            }
            ids.add(id);
        }
        return new Page(ids, null);
    }

    /** A page of client ids in order, and the id to continue after (null when there are no more). */
    public record Page(List<String> ids, String next) {
    }
}
