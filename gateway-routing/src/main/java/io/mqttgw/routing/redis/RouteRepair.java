package io.mqttgw.routing.redis;

import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.RouteCheck.Difference;
import io.mqttgw.core.spi.RouteCheck.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;

/**
 * Repairs the differences a route table check confirmed. Missing routes and wrong epochs are written as a resync
 * writes them (never over a route another node wrote for a later connection); stale and dead nodes' routes get the
 * fenced delete of exactly the route that was read. One pipeline per {@code batch-size} differences.
 *
 * <p>Threading: blocks the calling thread, the check's own (never an event loop nor the flusher). Stateless.
 */
final class RouteRepair {
    private final RouteBatches batches;
    private final int batchSize;

    RouteRepair(RouteBatches batches, int batchSize) {
        this.batches = batches;
        this.batchSize = batchSize;
    }

    /** The differences, each marked repaired if its script took effect. */
    List<Difference> repair(List<Difference> confirmed, Map<String, Route> liveNow) throws Exception {
        List<Difference> out = new ArrayList<>(confirmed.size());
        for (int i = 0; i < confirmed.size(); i += batchSize) {
            List<Difference> chunk = confirmed.subList(i, Math.min(confirmed.size(), i + batchSize));
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
                    // an entry left in the single index of a dead node of an earlier version is its cleanup's
                    case DEAD_NODE -> results.add(batches.delete(batch, d.routeNode(), d.clientId(), d.routeEpoch(),
                            false));
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
}
