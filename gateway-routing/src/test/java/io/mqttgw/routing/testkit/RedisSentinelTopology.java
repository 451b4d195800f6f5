package io.mqttgw.routing.testkit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Redis Sentinel as run in production, on 127.0.0.1 ephemeral ports: one master, one replica and three sentinels
 * (quorum 2) watching it under the name {@link #MASTER_NAME}. A master that stops answering for
 * {@code down-after-milliseconds} (1 s here, to keep tests short) is replaced by its replica. Every process is a
 * real redis-server ({@link RedisTestServer}); {@link #close()} stops them all.
 */
public final class RedisSentinelTopology implements AutoCloseable {
    public static final String MASTER_NAME = "mqttgw";

    private final List<RedisTestServer> servers = new ArrayList<>();
    private final List<RedisTestServer> sentinels = new ArrayList<>();

    private RedisSentinelTopology() {
    }

    public static RedisSentinelTopology start(Path dir) {
        RedisSentinelTopology t = new RedisSentinelTopology();
        try {
            RedisTestServer master = RedisTestServer.start(dir.resolve("master"));
            t.servers.add(master);
            RedisTestServer replica = RedisTestServer.start(dir.resolve("replica"),
                    List.of("--replicaof", "127.0.0.1", Integer.toString(master.port())));
            t.servers.add(replica);
            await("replica in sync with the master", () -> "up".equals(Resp.field(
                    Resp.text(replica.port(), "INFO", "replication"), "master_link_status")), 20);
            for (int i = 0; i < 3; i++) {
                t.sentinels.add(RedisTestServer.startSentinel(dir.resolve("sentinel-" + i), List.of(
                        "sentinel monitor " + MASTER_NAME + " 127.0.0.1 " + master.port() + " 2",
                        "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                        "sentinel failover-timeout " + MASTER_NAME + " 10000",
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
     * returns the killed server, which can be started again (it then comes back as a replica).
     */
    public RedisTestServer killMasterAndAwaitFailover(long seconds) {
        RedisTestServer old = master();
        old.stop();
        await("a sentinel failover away from port " + old.port(), () -> {
            RedisTestServer now = master();
            return now != old && "master".equals(Resp.field(Resp.text(now.port(), "INFO", "replication"), "role"));
        }, seconds);
        return old;
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
