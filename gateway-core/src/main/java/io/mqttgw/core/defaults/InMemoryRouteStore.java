package io.mqttgw.core.defaults;

import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteCheck;
import io.mqttgw.core.spi.RouteCheck.Difference;
import io.mqttgw.core.spi.RouteCheck.Kind;
import io.mqttgw.core.spi.RouteEvents;
import io.mqttgw.core.spi.RouteStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Routes of a single node in a {@link ConcurrentHashMap}, with the same fencing as a shared store: a write never
 * replaces a route with a higher epoch, and a delete only removes the exact route it names. Thread-safe.
 */
public final class InMemoryRouteStore implements RouteStore {
    private static final CompletionStage<Void> DONE = CompletableFuture.completedFuture(null);

    private final ConcurrentHashMap<String, Route> routes = new ConcurrentHashMap<>();
    private final String nodeId;
    private volatile RouteEvents events;

    public InMemoryRouteStore() {
        this("local");
    }

    /** @param nodeId the node whose routes these are, as a check names it */
    public InMemoryRouteStore(String nodeId) {
        this.nodeId = nodeId;
    }

    @Override
    public void start(RouteEvents node) {
        this.events = node;
    }

    @Override
    public CompletionStage<Void> put(Route route) {
        routes.merge(route.clientId(), route, (old, now) -> old.nodeId().equals(now.nodeId())
                && old.epoch() > now.epoch() ? old : now);
        return DONE;
    }

    @Override
    public CompletionStage<Void> remove(Route route) {
        routes.remove(route.clientId(), route);
        return DONE;
    }

    @Override
    public CompletionStage<Optional<Route>> lookup(String clientId) {
        return CompletableFuture.completedFuture(Optional.ofNullable(routes.get(clientId)));
    }

    /**
     * The table against the node's live sessions, on a thread of its own. A single node's table has no dead nodes;
     * every difference is looked at twice, so a connect or disconnect between the two reads is not reported.
     */
    @Override
    public CompletionStage<RouteCheck> verify(boolean repair) {
        RouteEvents node = events;
        if (node == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("route store not started"));
        }
        return CompletableFuture.supplyAsync(() -> check(node, repair), task -> {
            Thread t = new Thread(task, "route-verify");
            t.setDaemon(true);
            t.start();
        });
    }

    private RouteCheck check(RouteEvents node, boolean repair) {
        long start = System.nanoTime();
        List<Difference> first = differences(node);
        List<Difference> found = new ArrayList<>();
        Map<String, Route> live = live(node);
        for (Difference d : first) {
            Route now = routes.get(d.clientId());
            Route session = live.get(d.clientId());
            Difference again = difference(d.clientId(), session, now);
            if (again != null && again.kind() == d.kind()) {
                boolean fixed = repair && (session != null ? routes.put(d.clientId(), session) != session
                        : routes.remove(d.clientId(), now));
                found.add(new Difference(d.kind(), d.clientId(), d.routeNode(), d.routeEpoch(), d.liveEpoch(),
                        fixed));
            }
        }
        long repaired = found.stream().filter(Difference::repaired).count();
        List<Difference> listed = found.size() > RouteCheck.MAX_LISTED
                ? List.copyOf(found.subList(0, RouteCheck.MAX_LISTED)) : List.copyOf(found);
        return new RouteCheck(nodeId, true, live.size(),
                routes.size(), routes.size(), listed, found.size(), repaired,
                (System.nanoTime() - start) / 1_000_000);
    }

    private List<Difference> differences(RouteEvents node) {
        Map<String, Route> live = live(node);
        List<Difference> out = new ArrayList<>();
        live.forEach((id, session) -> {
            Difference d = difference(id, session, routes.get(id));
            if (d != null) {
                out.add(d);
            }
        });
        routes.forEach((id, route) -> {
            if (!live.containsKey(id)) {
                out.add(difference(id, null, route));
            }
        });
        return out;
    }

    private static Difference difference(String id, Route session, Route route) {
        if (session == null) {
            return route == null ? null : new Difference(Kind.STALE, id, route.nodeId(), route.epoch(), 0, false);
        }
        if (route == null) {
            return new Difference(Kind.MISSING, id, null, 0, session.epoch(), false);
        }
        return route.epoch() == session.epoch() ? null
                : new Difference(Kind.WRONG_EPOCH, id, route.nodeId(), route.epoch(), session.epoch(), false);
    }

    private static Map<String, Route> live(RouteEvents node) {
        Map<String, Route> live = new HashMap<>();
        node.forEachLiveRoute(r -> live.merge(r.clientId(), r, (a, b) -> a.epoch() >= b.epoch() ? a : b));
        return live;
    }

    public int size() {
        return routes.size();
    }
}
