package io.mqttgw.routing.redis;

import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteCheck;
import io.mqttgw.core.spi.RouteCheck.Difference;
import io.mqttgw.core.spi.RouteCheck.Kind;
import io.mqttgw.core.spi.RouteEvents;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.ScoredEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One reconciliation of the route table with this node's live sessions ({@link RouteCheck}). Work grows with this
 * node's sessions and index, not with the fleet, except for one paged SCAN of the route keys that finds routes naming
 * nodes whose heartbeat is gone. Every read is a pipeline of {@code batch-size} commands.
 *
 * <p>A difference seen once may be route work still queued (a device that just connected or left): every candidate
 * is read again after a settle time of at least a heartbeat interval and reported only if it still differs. A route
 * counts as a dead node's only if that node's heartbeat key was gone at both looks while this node's own key was
 * there both times, so a Redis that just lost its data (every heartbeat gone until the next beat) never makes live
 * nodes' routes look dead. Repairs are the fenced route scripts the flusher uses, so a route rewritten meanwhile by
 * its node stays.
 *
 * <p>Runs on a thread of its own, never an event loop nor the flusher; gives up after its time bound and reports what
 * it found so far.
 */
final class RouteVerifier {
    private static final Logger LOG = LoggerFactory.getLogger(RouteVerifier.class);

    private final RedisRouteSettings settings;
    private final String nodeId;
    private final RouteKeys keys;
    private final RedissonClient client;
    private final RouteBatches batches;
    private final RouteEvents events;
    private final long settleNanos;
    private final long deadlineNanos;
    private final long startNanos = System.nanoTime();
    /** Candidates by client id, in the order found; a client id is reported once. */
    private final Map<String, Difference> candidates = new LinkedHashMap<>();
    private long lastFoundNanos;
    private boolean complete = true;
    private long live;
    private long indexed;
    private long scanned;

    RouteVerifier(RedisRouteSettings settings, String nodeId, RedissonClient client, RouteEvents events,
                  Duration settle, Duration bound) {
        this.settings = settings;
        this.nodeId = nodeId;
        this.keys = new RouteKeys(settings.keyPrefix());
        this.client = client;
        this.batches = new RouteBatches(client, keys, nodeId, settings.timeout());
        this.events = events;
        this.settleNanos = settle.toNanos();
        this.deadlineNanos = startNanos + bound.toNanos();
    }

    RouteCheck run(boolean repair) throws Exception {
        Set<String> deadAtFirst = deadNodes();
        Map<String, Route> liveRoutes = liveRoutes();
        live = liveRoutes.size();
        checkLive(liveRoutes);
        checkIndex(liveRoutes);
        if (deadAtFirst != null) {
            scan(deadAtFirst, liveRoutes);
        }
        long wait = lastFoundNanos + settleNanos - System.nanoTime();
        if (wait > 0 && !candidates.isEmpty()) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
        List<Difference> confirmed = confirm(deadAtFirst);
        long repaired = 0;
        if (repair && !confirmed.isEmpty()) {
            confirmed = repair(confirmed, liveRoutes());
            repaired = confirmed.stream().filter(Difference::repaired).count();
        }
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
        LOG.info("route table check of node {}: {} live sessions, {} indexed, {} routes scanned, {} differences{}{}",
                nodeId, live, indexed, scanned, confirmed.size(), repair ? ", " + repaired + " repaired" : "",
                complete ? "" : " (time bound reached: incomplete)");
        List<Difference> listed = confirmed.size() > RouteCheck.MAX_LISTED
                ? List.copyOf(confirmed.subList(0, RouteCheck.MAX_LISTED)) : List.copyOf(confirmed);
        return new RouteCheck(nodeId, complete, live, indexed, scanned, listed, confirmed.size(), repaired, took);
    }

    private boolean outOfTime() {
        if (System.nanoTime() - deadlineNanos >= 0) {
            complete = false;
            return true;
        }
        return false;
    }

    private Map<String, Route> liveRoutes() {
        Map<String, Route> routes = new HashMap<>();
        events.forEachLiveRoute(r -> routes.merge(r.clientId(), r, (a, b) -> a.epoch() >= b.epoch() ? a : b));
        return routes;
    }

    /**
     * The nodes (of the node set, and any other a route names later) whose heartbeat key is gone, or null when this
     * node's own key is gone too: then Redis just lost its data and nobody's missing key means anything.
     */
    private Set<String> deadNodes() throws Exception {
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

    private Map<String, Boolean> alive(Set<String> nodes) throws Exception {
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

    /** Each live session against its route. */
    private void checkLive(Map<String, Route> liveRoutes) throws Exception {
        Iterator<Route> it = liveRoutes.values().iterator();
        while (it.hasNext() && !outOfTime()) {
            List<Route> chunk = new ArrayList<>(settings.batchSize());
            while (it.hasNext() && chunk.size() < settings.batchSize()) {
                chunk.add(it.next());
            }
            Map<String, String[]> stored = read(chunk.stream().map(Route::clientId).toList());
            for (Route r : chunk) {
                Difference d = liveDifference(r, stored.get(r.clientId()));
                if (d != null) {
                    found(d);
                }
            }
        }
    }

    private Difference liveDifference(Route r, String[] stored) {
        if (stored == null) {
            return new Difference(Kind.MISSING, r.clientId(), null, 0, r.epoch(), false);
        }
        if (!nodeId.equals(stored[0])) {
            return new Difference(Kind.HELD_ELSEWHERE, r.clientId(), stored[0], epoch(stored), r.epoch(), false);
        }
        if (epoch(stored) != r.epoch()) {
            return new Difference(Kind.WRONG_EPOCH, r.clientId(), nodeId, epoch(stored), r.epoch(), false);
        }
        return null;
    }

    /** This node's index against its live sessions: routes naming this node for a session it does not hold. */
    private void checkIndex(Map<String, Route> liveRoutes) throws Exception {
        double after = Double.NEGATIVE_INFINITY;
        while (!outOfTime()) {
            List<ScoredEntry<String>> chunk = new ArrayList<>(batches.await(client
                    .<String>getScoredSortedSet(keys.nodeRoutes(nodeId), StringCodec.INSTANCE)
                    .entryRangeAsync(after, false, Double.POSITIVE_INFINITY, true, 0, settings.batchSize())));
            if (chunk.isEmpty()) {
                return;
            }
            after = chunk.get(chunk.size() - 1).getScore();
            indexed += chunk.size();
            List<String> ids = new ArrayList<>();
            for (ScoredEntry<String> e : chunk) {
                Route r = liveRoutes.get(e.getValue());
                if (r == null || r.epoch() != (long) e.getScore().doubleValue()) {
                    ids.add(e.getValue());
                }
            }
            Map<String, String[]> stored = read(ids);
            for (String id : ids) {
                String[] s = stored.get(id);
                Route r = liveRoutes.get(id);
                if (s != null && nodeId.equals(s[0]) && (r == null || r.epoch() != epoch(s))) {
                    found(r == null ? new Difference(Kind.STALE, id, nodeId, epoch(s), 0, false)
                            : new Difference(Kind.WRONG_EPOCH, id, nodeId, epoch(s), r.epoch(), false));
                }
            }
        }
    }

    /** Pages through every route key for routes naming a node whose heartbeat is gone. */
    private void scan(Set<String> dead, Map<String, Route> liveRoutes) throws Exception {
        String prefix = keys.route("");
        String head = prefix.substring(0, prefix.length() - 1);
        Iterator<String> it = client.getKeys().getKeysByPattern(glob(head) + "*", settings.batchSize()).iterator();
        Set<String> unknown = new HashSet<>();
        // a node is looked up once per check, not once per route naming it
        Set<String> seenAlive = new HashSet<>();
        seenAlive.add(nodeId);
        while (it.hasNext() && !outOfTime()) {
            List<String> ids = new ArrayList<>(settings.batchSize());
            while (it.hasNext() && ids.size() < settings.batchSize()) {
                String key = it.next();
                if (key.startsWith(head) && key.endsWith("}")) {
                    ids.add(key.substring(head.length(), key.length() - 1));
                }
            }
            scanned += ids.size();
            Map<String, String[]> stored = read(ids);
            for (Map.Entry<String, String[]> e : stored.entrySet()) {
                String node = e.getValue()[0];
                if (!seenAlive.contains(node) && !dead.contains(node) && !unknown.contains(node)) {
                    if (alive(Set.of(node)).get(node)) {
                        seenAlive.add(node);
                    } else {
                        // a node that never joined the node set (or left it) and has no heartbeat
                        unknown.add(node);
                    }
                }
                if (dead.contains(node) || unknown.contains(node)) {
                    found(new Difference(Kind.DEAD_NODE, e.getKey(), node, epoch(e.getValue()), 0, false));
                } else if (nodeId.equals(node) && !liveRoutes.containsKey(e.getKey())) {
                    // in Redis Cluster a route can exist without its index entry (another slot)
                    found(new Difference(Kind.STALE, e.getKey(), node, epoch(e.getValue()), 0, false));
                }
            }
        }
        dead.addAll(unknown);
    }

    private void found(Difference d) {
        if (candidates.putIfAbsent(d.clientId(), d) == null) {
            lastFoundNanos = System.nanoTime();
        }
    }

    /** Reads the candidates again; keeps those that still differ the same way. */
    private List<Difference> confirm(Set<String> deadAtFirst) throws Exception {
        if (candidates.isEmpty()) {
            return List.of();
        }
        Set<String> deadNow = deadNodes();
        Map<String, Route> liveNow = liveRoutes();
        List<Difference> confirmed = new ArrayList<>();
        List<String> ids = new ArrayList<>(candidates.keySet());
        for (int i = 0; i < ids.size(); i += settings.batchSize()) {
            List<String> chunk = ids.subList(i, Math.min(ids.size(), i + settings.batchSize()));
            Map<String, String[]> stored = read(chunk);
            for (String id : chunk) {
                Difference before = candidates.get(id);
                Difference now = again(before, liveNow.get(id), stored.get(id), deadAtFirst, deadNow);
                if (now != null && now.kind() == before.kind()) {
                    confirmed.add(now);
                }
            }
        }
        return confirmed;
    }

    private Difference again(Difference before, Route live, String[] stored, Set<String> deadAtFirst,
                             Set<String> deadNow) {
        String id = before.clientId();
        if (live != null) {
            return liveDifference(live, stored);
        }
        if (stored == null) {
            return null;
        }
        if (nodeId.equals(stored[0])) {
            return new Difference(Kind.STALE, id, nodeId, epoch(stored), 0, false);
        }
        boolean dead = deadAtFirst != null && deadNow != null && deadAtFirst.contains(stored[0])
                && (deadNow.contains(stored[0]) || !alive(stored[0]));
        return dead ? new Difference(Kind.DEAD_NODE, id, stored[0], epoch(stored), 0, false) : null;
    }

    private boolean alive(String node) {
        try {
            return alive(Set.of(node)).get(node);
        } catch (Exception e) {
            return true; // in doubt, a node is alive: its routes are not reported dead
        }
    }

    /**
     * Missing routes and wrong epochs are written as a resync writes them (never over a route another node wrote for
     * a later connection); stale and dead nodes' routes get the fenced delete of exactly the route that was read.
     */
    private List<Difference> repair(List<Difference> confirmed, Map<String, Route> liveNow) throws Exception {
        List<Difference> out = new ArrayList<>(confirmed.size());
        for (int i = 0; i < confirmed.size(); i += settings.batchSize()) {
            List<Difference> chunk = confirmed.subList(i, Math.min(confirmed.size(), i + settings.batchSize()));
            RBatch batch = batches.begin();
            List<RFuture<Long>> results = new ArrayList<>(chunk.size());
            for (Difference d : chunk) {
                Route r = liveNow.get(d.clientId());
                switch (d.kind()) {
                    case MISSING -> results.add(r == null ? null : batches.put(batch, r, true));
                    case WRONG_EPOCH -> {
                        if (r == null) {
                            results.add(null);
                        } else {
                            batches.delete(batch, d.clientId(), d.routeEpoch());
                            results.add(batches.put(batch, r, true));
                        }
                    }
                    case STALE -> results.add(batches.delete(batch, d.clientId(), d.routeEpoch()));
                    case DEAD_NODE -> results.add(batches.delete(batch, d.routeNode(), d.clientId(), d.routeEpoch()));
                    default -> results.add(null);
                }
            }
            batches.execute(batch);
            for (int j = 0; j < chunk.size(); j++) {
                Difference d = chunk.get(j);
                RFuture<Long> f = results.get(j);
                Long result = f == null ? null : RouteBatches.result(f);
                boolean done = result != null && (d.kind() == Kind.MISSING || d.kind() == Kind.WRONG_EPOCH
                        ? result == RouteScripts.PUT_WRITTEN || result == RouteScripts.PUT_TOOK_OVER
                        : result == 1L);
                out.add(new Difference(d.kind(), d.clientId(), d.routeNode(), d.routeEpoch(), d.liveEpoch(), done));
            }
        }
        return out;
    }

    /** Node and epoch of each route that exists, by client id, one pipeline per chunk. */
    private Map<String, String[]> read(List<String> ids) throws Exception {
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

    private static long epoch(String[] stored) {
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
