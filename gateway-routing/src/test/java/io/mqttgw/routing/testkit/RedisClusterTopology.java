package io.mqttgw.routing.testkit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Redis Cluster as {@code redis-cli --cluster create --cluster-replicas 1} lays it out, on 127.0.0.1 ephemeral ports:
 * three masters with the slots 0-5460, 5461-10922 and 10923-16383, each with one replica. Built with the cluster
 * commands themselves (ADDSLOTSRANGE, MEET, REPLICATE), so the redis-server binary alone is enough. A master that
 * stops answering for {@code cluster-node-timeout} (1 s here) is replaced by its replica. {@link #close()} stops
 * every process.
 */
public final class RedisClusterTopology implements FailoverTopology {
    private static final int[][] RANGES = {{0, 5460}, {5461, 10922}, {10923, 16383}};

    private final List<RedisTestServer> servers = new ArrayList<>();

    private RedisClusterTopology() {
    }

    public static RedisClusterTopology start(Path dir) {
        RedisClusterTopology t = new RedisClusterTopology();
        try {
            for (int i = 0; i < 6; i++) {
                t.servers.add(RedisTestServer.start(dir.resolve("node-" + i), List.of("--cluster-enabled", "yes",
                        "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "1000",
                        "--cluster-replica-validity-factor", "0", "--cluster-require-full-coverage", "no",
                        // a replica syncs at once, not after Redis's 5 s wait for more replicas to share the transfer
                        "--repl-diskless-sync-delay", "0")));
            }
            List<String> ids = new ArrayList<>();
            for (RedisTestServer s : t.servers) {
                ids.add(Resp.text(s.port(), "CLUSTER", "MYID"));
            }
            for (int i = 0; i < 3; i++) {
                Resp.call(t.servers.get(i).port(), "CLUSTER", "ADDSLOTSRANGE", Integer.toString(RANGES[i][0]),
                        Integer.toString(RANGES[i][1]));
            }
            int first = t.servers.get(0).port();
            for (int i = 1; i < 6; i++) {
                Resp.call(first, "CLUSTER", "MEET", "127.0.0.1", Integer.toString(t.servers.get(i).port()));
            }
            for (RedisTestServer s : t.servers) {
                RedisSentinelTopology.await("node " + s.port() + " knows all six nodes", () -> Resp.text(s.port(),
                        "CLUSTER", "NODES").lines().filter(l -> !l.contains("handshake")).count() == 6, 30);
            }
            for (int i = 3; i < 6; i++) {
                int port = t.servers.get(i).port();
                String masterId = ids.get(i - 3);
                // REPLICATE refuses a master this node has not learned yet (gossip): retried until it knows it
                RedisSentinelTopology.await("node " + port + " replicates " + masterId, () -> {
                    Resp.call(port, "CLUSTER", "REPLICATE", masterId);
                    return true;
                }, 30);
            }
            for (RedisTestServer s : t.servers) {
                RedisSentinelTopology.await("node " + s.port() + " sees the cluster ok with three replicas",
                        () -> "ok".equals(Resp.field(Resp.text(s.port(), "CLUSTER", "INFO"), "cluster_state"))
                                && Resp.text(s.port(), "CLUSTER", "NODES").lines()
                                        .map(l -> l.split(" ")[2])
                                        .filter(f -> f.contains("slave") && !f.contains("fail")).count() == 3,
                        30);
            }
            for (int i = 3; i < 6; i++) {
                int port = t.servers.get(i).port();
                // 30 s ran out once at set-up with the machine's load at 19 (RedisClusterDelayedWillsIT)
                RedisSentinelTopology.await("replica " + port + " in sync", () -> "up".equals(Resp.field(
                        Resp.text(port, "INFO", "replication"), "master_link_status")), 60);
            }
            return t;
        } catch (RuntimeException | Error e) {
            t.close();
            throw e;
        }
    }

    /** Every node's address (a client needs one that answers; all six make it independent of which died). */
    public List<String> addresses() {
        return servers.stream().map(RedisTestServer::address).toList();
    }

    /** The slot Redis computes for a key (CLUSTER KEYSLOT). */
    public int slot(String key) {
        return (int) (long) (Long) Resp.call(liveServer().port(), "CLUSTER", "KEYSLOT", key);
    }

    /** The node that serves {@code slot} now, as a live node's CLUSTER SLOTS says. */
    public RedisTestServer masterOf(int slot) {
        int port = portServing((List<?>) Resp.call(liveServer().port(), "CLUSTER", "SLOTS"), slot);
        return servers.stream().filter(s -> s.port() == port).findFirst().orElseThrow();
    }

    private static int portServing(List<?> clusterSlots, long slot) {
        for (Object o : clusterSlots) {
            List<?> r = (List<?>) o;
            if ((Long) r.get(0) <= slot && slot <= (Long) r.get(1)) {
                return (int) (long) (Long) ((List<?>) r.get(2)).get(1);
            }
        }
        throw new IllegalStateException("no node serves slot " + slot);
    }

    /** Which of the three original shards (0, 1, 2) a slot belongs to; stable across failovers. */
    public static int shard(int slot) {
        for (int i = 0; i < RANGES.length; i++) {
            if (slot <= RANGES[i][1]) {
                return i;
            }
        }
        throw new IllegalArgumentException("slot " + slot);
    }

    /**
     * Kills the master serving {@code slot} (SIGKILL) and returns it; {@link #awaitFailover} then waits until its
     * replica took over.
     */
    public RedisTestServer killMasterOf(int slot) {
        RedisTestServer master = masterOf(slot);
        master.stop();
        return master;
    }

    @Override
    public RedisTestServer killMasterOf(String key) {
        return killMasterOf(slot(key));
    }

    /**
     * Freezes the master serving {@code slot} (SIGSTOP: a hung host, its connections open and silent) and returns
     * it; the cluster fails it over as if it had died. {@link #restart} kills and starts it again.
     */
    public RedisTestServer freezeMasterOf(int slot) {
        RedisTestServer master = masterOf(slot);
        master.freeze();
        return master;
    }

    /** Waits until a live node serves {@code slot} as master and the cluster says ok again. */
    public void awaitFailover(int slot, RedisTestServer killed, long seconds) {
        RedisSentinelTopology.await("replica takes over slot " + slot + " from port " + killed.port(), () -> {
            RedisTestServer now = masterOf(slot);
            return now != killed && now.running()
                    && "ok".equals(Resp.field(Resp.text(now.port(), "CLUSTER", "INFO"), "cluster_state"));
        }, seconds);
    }

    @Override
    public void awaitFailover(String key, RedisTestServer killed, long seconds) {
        awaitFailover(slot(key), killed, seconds);
    }

    /** Starts a killed node again (it comes back as a replica) and waits until every shard has its replica. */
    @Override
    public void restart(RedisTestServer killed, long seconds) {
        killed.stop();
        killed.start();
        for (RedisTestServer s : servers) {
            RedisSentinelTopology.await("node " + s.port() + " sees three masters and three replicas, none failed",
                    () -> Resp.text(s.port(), "CLUSTER", "NODES").lines().map(l -> l.split(" ")[2])
                            .filter(f -> !f.contains("fail")).count() == 6
                            && Resp.text(s.port(), "CLUSTER", "NODES").lines().map(l -> l.split(" ")[2])
                            .filter(f -> f.contains("slave")).count() == 3, seconds);
        }
        RedisSentinelTopology.await("node " + killed.port() + " in sync with its master", () -> "up".equals(
                Resp.field(Resp.text(killed.port(), "INFO", "replication"), "master_link_status")), seconds);
    }

    /** A few pipelined connections, not some per key: tests poll this. */
    @Override
    public Map<String, Long> pttl(List<String> keys) {
        int live = liveServer().port();
        List<Object> slots = Resp.pipeline(live, keys.stream().map(k -> List.of("CLUSTER", "KEYSLOT", k)).toList());
        List<?> layout = (List<?>) Resp.call(live, "CLUSTER", "SLOTS");
        Map<Integer, List<String>> byMaster = new HashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            byMaster.computeIfAbsent(portServing(layout, (Long) slots.get(i)), p -> new ArrayList<>())
                    .add(keys.get(i));
        }
        Map<String, Long> ttls = new HashMap<>();
        byMaster.forEach((port, ofMaster) -> {
            List<Object> answers = Resp.pipeline(port, ofMaster.stream().map(k -> List.of("PTTL", k)).toList());
            for (int i = 0; i < ofMaster.size(); i++) {
                ttls.put(ofMaster.get(i), (Long) answers.get(i));
            }
        });
        return ttls;
    }

    /** Zeroes every live node's command statistics ({@code CONFIG RESETSTAT}). */
    public void resetStats() {
        servers.stream().filter(RedisTestServer::running).forEach(s -> Resp.call(s.port(), "CONFIG", "RESETSTAT"));
    }

    /**
     * How many times the live nodes of one role ({@code master} or {@code slave}, as INFO replication names it) ran
     * {@code command} since {@link #resetStats()}, as INFO commandstats counts it.
     */
    public long calls(String role, String command) {
        long calls = 0;
        for (RedisTestServer s : servers) {
            if (s.running() && role.equals(Resp.field(Resp.text(s.port(), "INFO", "replication"), "role"))) {
                String stat = Resp.field(Resp.text(s.port(), "INFO", "commandstats"), "cmdstat_" + command);
                if (!stat.isEmpty()) {
                    calls += Long.parseLong(stat.substring("calls=".length(), stat.indexOf(',')));
                }
            }
        }
        return calls;
    }

    private RedisTestServer liveServer() {
        return servers.stream().filter(RedisTestServer::running).findFirst().orElseThrow();
    }

    @Override
    public void close() {
        servers.forEach(RedisTestServer::close);
    }
}
