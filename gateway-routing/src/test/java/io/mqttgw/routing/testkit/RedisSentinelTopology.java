package io.mqttgw.routing.testkit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Redis Sentinel as run in production, on 127.0.0.1 ephemeral ports: one master, one replica and three sentinels
 * (quorum 2) watching it under the name {@link #MASTER_NAME}. A master that stops answering for
 * {@code down-after-milliseconds} (1 s here, to keep tests short) is replaced by its replica. Every process is a
 * real redis-server ({@link RedisTestServer}); {@link #close()} stops them all.
 */
public final class RedisSentinelTopology implements FailoverTopology {
    public static final String MASTER_NAME = "mqttgw";

    private final List<RedisTestServer> servers = new ArrayList<>();
    private final List<RedisTestServer> sentinels = new ArrayList<>();

    private RedisSentinelTopology() {
    }

    public static RedisSentinelTopology start(Path dir) {
        RedisSentinelTopology t = new RedisSentinelTopology();
        try {
            // either may be the master that a (re)started replica syncs from: at once, not after Redis's default
            // 5 s wait for more replicas to share the transfer (here one per failover in a test)
            List<String> syncAtOnce = List.of("--repl-diskless-sync-delay", "0");
            RedisTestServer master = RedisTestServer.start(dir.resolve("master"), syncAtOnce);
            t.servers.add(master);
            List<String> replicaOf = new ArrayList<>(syncAtOnce);
            replicaOf.addAll(List.of("--replicaof", "127.0.0.1", Integer.toString(master.port())));
            RedisTestServer replica = RedisTestServer.start(dir.resolve("replica"), replicaOf);
            t.servers.add(replica);
            await("replica in sync with the master", () -> "up".equals(Resp.field(
                    Resp.text(replica.port(), "INFO", "replication"), "master_link_status")), 20);
            // three sentinels that see the master go down together may split their votes; each tries again only
            // after twice the failover timeout (20 s with 10 s, seen in tests that fail over several times)
            for (int i = 0; i < 3; i++) {
                t.sentinels.add(RedisTestServer.startSentinel(dir.resolve("sentinel-" + i), List.of(
                        "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + master.port() + " 2",
                        "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                        "sentinel failover-timeout " + MASTER_NAME + " 5000",
                        "sentinel parallel-syncs " + MASTER_NAME + " 1")));
            }
            // a failover needs every sentinel to know the replica and the other sentinels (learned over hello
            // messages every 2 s); a test that kills the master earlier would wait for nothing
            for (RedisTestServer s : t.sentinels) {
                await("sentinel " + s.port() + " knows the replica and two other sentinels", () -> {
                    String info = sentinelMasterField(s.port(), "num-slaves") + "/"
                            + sentinelMasterField(s.port(), "num-other-sentinels");
                    return "1/2".equals(info);
                }, 30);
            }
            return t;
        } catch (RuntimeException | Error e) {
            t.close();
            throw e;
        }
    }

    private static String sentinelMasterField(int sentinelPort, String name) {
        Object answer = Resp.call(sentinelPort, "SENTINEL", "MASTER", MASTER_NAME);
        if (answer instanceof List<?> l) {
            for (int i = 0; i + 1 < l.size(); i += 2) {
                if (name.equals(l.get(i))) {
                    return String.valueOf(l.get(i + 1));
                }
            }
        }
        return "";
    }

    /** The sentinels' addresses, as a client is configured with them. */
    public List<String> sentinelAddresses() {
        return sentinels.stream().map(RedisTestServer::address).toList();
    }

    /** The data node the sentinels currently name as master. */
    public RedisTestServer master() {
        Object answer = Resp.call(sentinels.get(0).port(), "SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
        int port = Integer.parseInt(String.valueOf(((List<?>) answer).get(1)));
        return servers.stream().filter(s -> s.port() == port).findFirst()
                .orElseThrow(() -> new IllegalStateException("sentinels name an unknown master on port " + port));
    }

    /**
     * Kills the current master (SIGKILL) and waits until the sentinels promoted the replica and it accepts writes;
     * returns the killed server, which {@link #restart} brings back as the new master's replica.
     */
    public RedisTestServer killMasterAndAwaitFailover(long seconds) {
        RedisTestServer old = killMasterOf("");
        awaitFailover("", old, seconds);
        return old;
    }

    /**
     * Kills the one master, whatever the key, once every sentinel sees its replica healthy (the one they will promote)
     * and the replica has every write the master had taken when asked: what
     * a test wrote before is then on the promoted replica (Redis replicates asynchronously, and a loaded machine can
     * delay the stream long enough to lose all of it).
     */
    @Override
    public RedisTestServer killMasterOf(String key) {
        awaitSentinelsSeeHealthyReplicas(60);
        RedisTestServer old = master();
        long written = Long.parseLong(Resp.field(Resp.text(old.port(), "INFO", "replication"), "master_repl_offset"));
        await("a replica has the writes of the master on port " + old.port() + " up to offset " + written,
                () -> servers.stream().filter(s -> s != old && s.running()).anyMatch(s -> Long.parseLong(Resp.field(
                        Resp.text(s.port(), "INFO", "replication"), "slave_repl_offset")) >= written), 20);
        old.stop();
        return old;
    }

    @Override
    public void awaitFailover(String key, RedisTestServer killed, long seconds) {
        await("a sentinel failover away from port " + killed.port(), () -> {
            RedisTestServer now = master();
            return now != killed && "master".equals(Resp.field(Resp.text(now.port(), "INFO", "replication"), "role"));
        }, seconds);
    }

    /**
     * Starts a killed master again and makes it the new master's replica at once (the sentinels would do it only
     * after it had answered as a master, an empty one, for some 8 s), then waits until it is in sync. That the
     * sentinels see it as a healthy replica, the one the next failover promotes, is waited for by the next
     * {@link #killMasterOf}: only a next failover needs it, and a sentinel's view can lag on a loaded machine (in
     * TILT mode, after its timer was starved for 2 s, a sentinel waits 30 s; one CI run timed out here after 60 s
     * behind a test that had passed).
     */
    @Override
    public void restart(RedisTestServer killed, long seconds) {
        killed.stop();
        killed.start();
        RedisTestServer master = master();
        String masterPort = Integer.toString(master.port());
        Resp.call(killed.port(), "REPLICAOF", "127.0.0.1", masterPort);
        await("port " + killed.port() + " in sync with the master on port " + masterPort, () -> "up".equals(
                Resp.field(Resp.text(killed.port(), "INFO", "replication"), "master_link_status")), seconds);
    }

    /** Waits until every sentinel sees every running server but the master as a healthy replica of the master. */
    private void awaitSentinelsSeeHealthyReplicas(long seconds) {
        RedisTestServer master = master();
        String masterPort = Integer.toString(master.port());
        for (RedisTestServer replica : servers) {
            if (replica == master || !replica.running()) {
                continue;
            }
            for (RedisTestServer s : sentinels) {
                try {
                    await("sentinel " + s.port() + " sees port " + replica.port() + " as a healthy replica", () -> {
                        Map<String, String> r = replica(s.port(), replica.port());
                        return "slave".equals(r.get("flags")) && "ok".equals(r.get("master-link-status"))
                                && masterPort.equals(r.get("master-port"));
                    }, seconds);
                } catch (RuntimeException e) {
                    throw new IllegalStateException(e.getMessage() + "; it reports " + replica(s.port(),
                            replica.port()) + ", master on port " + masterPort, e);
                }
            }
        }
    }

    /** What a sentinel knows of the replica on {@code port} (SENTINEL REPLICAS), empty if it knows none there. */
    private static Map<String, String> replica(int sentinelPort, int port) {
        Object answer = Resp.call(sentinelPort, "SENTINEL", "REPLICAS", MASTER_NAME);
        if (answer instanceof List<?> replicas) {
            for (Object o : replicas) {
                List<?> fields = (List<?>) o;
                Map<String, String> r = new HashMap<>();
                for (int i = 0; i + 1 < fields.size(); i += 2) {
                    r.put(String.valueOf(fields.get(i)), String.valueOf(fields.get(i + 1)));
                }
                if (Integer.toString(port).equals(r.get("port"))) {
                    return r;
                }
            }
        }
        return Map.of();
    }

    @Override
    public Map<String, Long> pttl(List<String> keys) {
        List<Object> answers = Resp.pipeline(master().port(), keys.stream().map(k -> List.of("PTTL", k)).toList());
        Map<String, Long> ttls = new HashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            ttls.put(keys.get(i), (Long) answers.get(i));
        }
        return ttls;
    }

    static void await(String what, java.util.function.BooleanSupplier condition, long seconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        RuntimeException last = null;
        while (System.nanoTime() - deadline < 0) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (RuntimeException e) {
                last = e;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        throw new IllegalStateException("timed out after " + seconds + " s waiting for: " + what
                + (last == null ? "" : " (last error: " + last.getMessage() + ")"));
    }

    @Override
    public void close() {
        sentinels.forEach(RedisTestServer::close);
        servers.forEach(RedisTestServer::close);
    }
}
