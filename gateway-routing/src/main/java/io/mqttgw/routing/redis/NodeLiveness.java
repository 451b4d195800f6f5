package io.mqttgw.routing.redis;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What this node has itself seen of the other nodes' heartbeats, and the one rule that makes a node dead: its key is
 * gone now <em>and</em> this node has watched its heartbeat not advance for {@code node-ttl}, measured on this node's
 * own clock, in an unbroken window of observations while Redis answered. A missing key alone proves nothing: a Redis
 * restarted from a snapshot (in which the heartbeats expired) or emptied has none, while every node is alive.
 *
 * <p>A heartbeat advances when its value changes (a live node writes its run id and a sequence number that grows with
 * every beat), when a missing key appears again, or when the key's remaining time to live rose since the last look
 * by more than the look's own duration can explain: a refresh that kept the value, as gateways of earlier versions
 * write it.
 *
 * <p>The window starts again ({@link #restart}) whenever Redis failed or came back, or lost this node's own heartbeat
 * key: what was seen before says nothing about a data set that may since have been replaced, so after such an event
 * a full {@code node-ttl} of fresh observation comes before any node is declared dead. A gap between two looks longer
 * than {@code node-ttl} (this node busy or stalled) starts that node's observation over as well.
 *
 * <p>{@link #observe} and {@link #forget} run on the flusher thread only; {@link #restart} on any thread.
 */
final class NodeLiveness {
    private final long ttlNanos;
    private final Map<String, Seen> seen = new HashMap<>();
    /** Observations made before this instant (System.nanoTime) do not count. */
    private volatile long windowStartNanos;

    NodeLiveness(long ttlNanos) {
        this.ttlNanos = ttlNanos;
        this.windowStartNanos = System.nanoTime();
    }

    /** Redis failed, came back, or lost data: every observation so far is discarded. Any thread. */
    void restart() {
        restart(System.nanoTime());
    }

    void restart(long now) {
        windowStartNanos = now;
    }

    /**
     * Records one look at {@code node}'s heartbeat and says whether the node is dead now.
     *
     * @param value the key's value, null when the key was missing
     * @param ttlMillis the key's remaining time to live (PTTL), negative when missing or without one
     * @param lookNanos how long the look took (the Redis round trip): bounds how far {@code ttlMillis} can be off
     * @param now System.nanoTime() when the answer arrived
     */
    boolean observe(String node, String value, long ttlMillis, long lookNanos, long now) {
        Seen s = seen.get(node);
        if (s == null || s.atNanos - windowStartNanos < 0 || now - s.atNanos > ttlNanos) {
            seen.put(node, new Seen(value, ttlMillis, now));
            return false;
        }
        if (advanced(s, value, ttlMillis, lookNanos, now)) {
            s.stillSinceNanos = now;
        }
        s.value = value;
        s.ttlMillis = ttlMillis;
        s.atNanos = now;
        return value == null && now - s.stillSinceNanos >= ttlNanos;
    }

    private static boolean advanced(Seen s, String value, long ttlMillis, long lookNanos, long now) {
        if (value == null) {
            return false;
        }
        if (!Objects.equals(value, s.value)) {
            return true;
        }
        if (ttlMillis < 0 || s.ttlMillis < 0) {
            return false;
        }
        // without a refresh the key's time to live falls by the time that passed; the answers are up to one look
        // apart in when Redis read them (and rounded to whole milliseconds)
        long elapsedMillis = (now - s.atNanos) / 1_000_000;
        long slackMillis = lookNanos / 1_000_000 + 2;
        return ttlMillis > s.ttlMillis - elapsedMillis + slackMillis;
    }

    /** A node no longer in the node set, or cleaned up: nothing more to watch. */
    void forget(String node) {
        seen.remove(node);
    }

    /** Drops what was seen of nodes that left the node set. */
    void retainOnly(Set<String> nodes) {
        seen.keySet().retainAll(nodes);
    }

    /** Seconds {@code node}'s heartbeat has been seen standing still, for the log. */
    long stillSeconds(String node, long now) {
        Seen s = seen.get(node);
        return s == null ? 0 : (now - s.stillSinceNanos) / 1_000_000_000L;
    }

    private static final class Seen {
        String value;
        long ttlMillis;
        long atNanos;
        long stillSinceNanos;

        Seen(String value, long ttlMillis, long now) {
            this.value = value;
            this.ttlMillis = ttlMillis;
            this.atNanos = now;
            this.stillSinceNanos = now;
        }
    }
}
