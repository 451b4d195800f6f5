package io.mqttgw.routing.redis;

import static io.mqttgw.routing.redis.RouteReads.epoch;

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
import org.redisson.api.RedissonClient;
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
 * it found so far. This class finds and confirms the differences; {@link RouteReads} reads Redis for it and
 * {@link RouteRepair} repairs what it confirmed.
 */
final class RouteVerifier {
    private static final Logger LOG = LoggerFactory.getLogger(RouteVerifier.class);

    private final RedisRouteSettings settings;
    private final String nodeId;
    private final RouteKeys keys;
    private final RedissonClient client;
    private final RouteBatches batches;
    private final RouteReads reads;
    private final NodeRouteIndex index;
    private final RouteRepair repairs;
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
        this.reads = new RouteReads(nodeId, keys, client, batches);
        this.index = new NodeRouteIndex(client, keys, batches, settings.batchSize());
        this.repairs = new RouteRepair(batches, settings.batchSize());
        this.events = events;
        this.settleNanos = settle.toNanos();
        this.deadlineNanos = startNanos + bound.toNanos();
    }

    RouteCheck run(boolean repair) throws Exception {
        Set<String> deadAtFirst = reads.deadNodes();
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
            confirmed = repairs.repair(confirmed, liveRoutes());
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

    /** Each live session against its route. */
    private void checkLive(Map<String, Route> liveRoutes) throws Exception {
        Iterator<Route> it = liveRoutes.values().iterator();
        while (it.hasNext() && !outOfTime()) {
            List<Route> chunk = new ArrayList<>(settings.batchSize());
            while (it.hasNext() && chunk.size() < settings.batchSize()) {
                chunk.add(it.next());
            }
            Map<String, String[]> stored = reads.read(chunk.stream().map(Route::clientId).toList());
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
        NodeRouteIndex.Cursor at = index.start(nodeId);
        while (!outOfTime()) {
            NodeRouteIndex.Chunk chunk = index.read(at);
            if (chunk.end()) {
                return;
            }
            at = chunk.next();
            indexed += chunk.entries().size();
            List<String> ids = new ArrayList<>();
            for (NodeRouteIndex.Entry e : chunk.entries()) {
                Route r = liveRoutes.get(e.clientId());
                if (r == null || r.epoch() != e.epoch()) {
                    ids.add(e.clientId());
                }
            }
            Map<String, String[]> stored = reads.read(ids);
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
        Iterator<String> it = client.getKeys().getKeysByPattern(RouteReads.glob(head) + "*", settings.batchSize())
                .iterator();
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
            Map<String, String[]> stored = reads.read(ids);
            for (Map.Entry<String, String[]> e : stored.entrySet()) {
                String node = e.getValue()[0];
                if (!seenAlive.contains(node) && !dead.contains(node) && !unknown.contains(node)) {
                    if (reads.alive(Set.of(node)).get(node)) {
                        seenAlive.add(node);
                    } else {
                        // a node that never joined the node set (or left it) and has no heartbeat
                        unknown.add(node);
                    }
                }
                if (dead.contains(node) || unknown.contains(node)) {
                    found(new Difference(Kind.DEAD_NODE, e.getKey(), node, epoch(e.getValue()), 0, false));
                } else if (nodeId.equals(node) && !liveRoutes.containsKey(e.getKey())) {
                    // a route no index entry names: nodes of earlier versions wrote the two apart in Redis Cluster
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
        Set<String> deadNow = reads.deadNodes();
        Map<String, Route> liveNow = liveRoutes();
        List<Difference> confirmed = new ArrayList<>();
        List<String> ids = new ArrayList<>(candidates.keySet());
        for (int i = 0; i < ids.size(); i += settings.batchSize()) {
            List<String> chunk = ids.subList(i, Math.min(ids.size(), i + settings.batchSize()));
            Map<String, String[]> stored = reads.read(chunk);
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
                && (deadNow.contains(stored[0]) || !reads.alive(stored[0]));
        return dead ? new Difference(Kind.DEAD_NODE, id, stored[0], epoch(stored), 0, false) : null;
    }
}
