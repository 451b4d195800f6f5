package io.mqttgw.routing.testkit;

import java.util.List;
import java.util.Map;

/**
 * A Redis topology whose masters a test can kill and see replaced by their replicas (Cluster, Sentinel): what the
 * checks that run the same steps on either need of it.
 */
public interface FailoverTopology extends AutoCloseable {
    /** Kills (SIGKILL: nothing saved, connections broken) the master that serves {@code key} now; returns it. */
    RedisTestServer killMasterOf(String key);

    /** Waits until a replica took {@code key} over from {@code killed} and accepts writes for it. */
    void awaitFailover(String key, RedisTestServer killed, long seconds);

    /**
     * Starts {@code killed} again, as a replica of the master that replaced it, and waits until it is in sync; the
     * topology can then fail over again (where the failure detector must first see the replica, the next
     * {@link #killMasterOf} waits for it).
     */
    void restart(RedisTestServer killed, long seconds);

    /**
     * The time to live in ms of each of {@code keys}, as the master serving it answers now ({@code PTTL}: -2 when there
     * is no such key, -1 when it has no expiry); read without a client library, whose topology logic is under test.
     */
    Map<String, Long> pttl(List<String> keys);
}
