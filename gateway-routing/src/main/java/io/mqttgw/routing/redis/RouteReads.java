package io.mqttgw.routing.redis;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The reads a route table check makes: routes by client id and the nodes' heartbeat keys, each a pipeline of the
 * commands asked for, waited for within the route timeout.
 *
 * <p>Threading: blocks the calling thread, so only the check's own thread calls it (never an event loop nor the
 * flusher). Not thread-safe; one per check.
 */
final class RouteReads {
    private final String nodeId;
    private final RouteKeys keys;
    private final RedissonClient client;
    private final RouteBatches batches;

    RouteReads(String nodeId, RouteKeys keys, RedissonClient client, RouteBatches batches) {
        this.nodeId = nodeId;
        this.keys = keys;
        this.client = client;
        this.batches = batches;
    }

    /**
     * The nodes (of the node set, and any other a route names later) whose heartbeat key is gone, or null when this
     * node's own key is gone too: then Redis just lost its data and nobody's missing key means anything.
     */
    Set<String> deadNodes() throws Exception {
        Set<String> nodes = batches.await(client.<String>getSet(keys.nodes(), StringCodec.INSTANCE).readAllAsync());
        nodes.add(nodeId);
        Map<String, Boolean> alive = alive(nodes);
        if (!alive.get(nodeId)) {
            return null;
        }
        Set<String> dead = new HashSet<>();
        alive.forEach((node, up) -> {
            if (!up) {
                dead.add(node);
            }
        });
        return dead;
    }

    Map<String, Boolean> alive(Set<String> nodes) throws Exception {
        RBatch batch = batches.begin();
        Map<String, RFuture<Long>> exists = new HashMap<>();
        for (String node : nodes) {
            exists.put(node, batch.getKeys().countExistsAsync(keys.alive(node)));
        }
        batches.execute(batch);
        Map<String, Boolean> alive = new HashMap<>();
        exists.forEach((node, f) -> alive.put(node, RouteBatches.result(f) > 0));
        return alive;
    }

    boolean alive(String node) {
        try {
            return alive(Set.of(node)).get(node);
        } catch (Exception e) {
            return true; // in doubt, a node is alive: its routes are not reported dead
        }
    }

    /** Node and epoch of each route that exists, by client id, one pipeline per chunk. */
    Map<String, String[]> read(List<String> ids) throws Exception {
        if (ids.isEmpty()) {
            return Map.of();
        }
        RBatch batch = batches.begin();
        Map<String, RFuture<Map<String, String>>> reads = new LinkedHashMap<>();
        for (String id : ids) {
            reads.put(id, batch.<String, String>getMap(keys.route(id), StringCodec.INSTANCE)
                    .getAllAsync(Set.of("node", "epoch")));
        }
        batches.execute(batch);
        Map<String, String[]> out = new HashMap<>();
        reads.forEach((id, f) -> {
            Map<String, String> fields = RouteBatches.result(f);
            if (fields != null && fields.get("node") != null && fields.get("epoch") != null) {
                out.put(id, new String[] {fields.get("node"), fields.get("epoch")});
            }
        });
        return out;
    }

    static long epoch(String[] stored) {
        try {
            return Long.parseLong(stored[1]);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Escapes the glob characters of a literal key part for SCAN MATCH. */
    static String glob(String literal) {
        StringBuilder g = new StringBuilder(literal.length() + 4);
        for (char c : literal.toCharArray()) {
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                g.append('\\');
            }
            g.append(c);
        }
        return g.toString();
    }
}
