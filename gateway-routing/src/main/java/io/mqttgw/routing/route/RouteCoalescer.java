package io.mqttgw.routing.route;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Operations waiting to be sent, coalesced per device. Per device at most one write (the highest epoch: a write
 * replaces any older route of this node anyway) and one delete (the highest epoch not cancelled) wait; a delete of
 * the connection whose write still waits cancels both, so a connection that came and went before a flush costs
 * Redis nothing. A delete is sent before the write of the same device (it is fenced by epoch, so the order only
 * matters for the epoch it names). Devices leave in the order they first arrived. Flusher thread only.
 */
public final class RouteCoalescer {
    /** What waits for one device. */
    public static final class Pending {
        private RouteOp delete;
        private RouteOp put;
        /** Operations made redundant, to complete when the device's batch is stored (or now, if nothing is sent). */
        private List<RouteOp> followers;

        public RouteOp delete() {
            return delete;
        }

        public RouteOp put() {
            return put;
        }

        /** Commands this device costs in a pipeline. */
        public int commands() {
            return (delete == null ? 0 : 2) + (put == null ? 0 : 2);
        }

        boolean isEmpty() {
            return delete == null && put == null;
        }

        private void follow(RouteOp op) {
            if (followers == null) {
                followers = new ArrayList<>(2);
            }
            followers.add(op);
        }

        /** Completes every operation of this device: stored, or coalesced into one that was. */
        public void complete() {
            if (delete != null) {
                delete.complete(null);
            }
            if (put != null) {
                put.complete(null);
            }
            completeFollowers();
        }

        void completeFollowers() {
            if (followers != null) {
                followers.forEach(op -> op.complete(null));
                followers = null;
            }
        }

        public void fail(Throwable error) {
            if (delete != null) {
                delete.completeExceptionally(error);
            }
            if (put != null) {
                put.completeExceptionally(error);
            }
            if (followers != null) {
                followers.forEach(op -> op.completeExceptionally(error));
            }
        }
    }

    /** What {@link #add} did with an operation, for the metrics. */
    public enum Outcome {
        /** Waits to be sent. */
        QUEUED,
        /** A write replaced by a newer write of the same device; completes with it. */
        SUPERSEDED,
        /** A write and the delete of the same connection cancelled out; both completed. */
        CANCELLED
    }

    private final LinkedHashMap<String, Pending> pending = new LinkedHashMap<>();
    private int operations;

    public Outcome add(RouteOp op) {
        Pending p = pending.computeIfAbsent(op.clientId(), k -> new Pending());
        if (op.kind() == RouteOp.Kind.PUT) {
            if (p.put == null) {
                p.put = op;
                operations++;
                return Outcome.QUEUED;
            }
            if (op.epoch() > p.put.epoch()) {
                p.follow(p.put);
                p.put = op;
                return Outcome.SUPERSEDED;
            }
            p.follow(op);
            return Outcome.SUPERSEDED;
        }
        if (p.put != null && p.put.epoch() == op.epoch()) {
            RouteOp put = p.put;
            p.put = null;
            operations--;
            put.complete(null);
            op.complete(null);
            if (p.isEmpty()) {
                p.completeFollowers();
                pending.remove(op.clientId());
            }
            return Outcome.CANCELLED;
        }
        if (p.delete == null) {
            p.delete = op;
            operations++;
        } else if (op.epoch() > p.delete.epoch()) {
            p.follow(p.delete);
            p.delete = op;
        } else {
            p.follow(op);
        }
        return Outcome.QUEUED;
    }

    /** Devices waiting. */
    public int devices() {
        return pending.size();
    }

    /** Writes and deletes waiting (cancelled and superseded ones not counted). */
    public int operations() {
        return operations;
    }

    public boolean isEmpty() {
        return pending.isEmpty();
    }

    /**
     * Up to {@code maxDevices} devices from the front, left in place: {@link #remove} them once they are stored, so a
     * failed pipeline is simply sent again (every script is idempotent).
     */
    public List<Map.Entry<String, Pending>> peek(int maxDevices) {
        List<Map.Entry<String, Pending>> out = new ArrayList<>(Math.min(maxDevices, pending.size()));
        Iterator<Map.Entry<String, Pending>> it = pending.entrySet().iterator();
        while (it.hasNext() && out.size() < maxDevices) {
            out.add(it.next());
        }
        return out;
    }

    /** Forgets devices returned by {@link #peek}; their operations are completed by the caller. */
    public void remove(List<Map.Entry<String, Pending>> sent) {
        for (Map.Entry<String, Pending> e : sent) {
            Pending p = pending.remove(e.getKey());
            if (p != null) {
                operations -= (p.delete == null ? 0 : 1) + (p.put == null ? 0 : 1);
            }
        }
    }

    /** Fails and forgets everything (the store gave up at shutdown); {@code each} sees every waiting operation. */
    public void failAll(Throwable error, java.util.function.Consumer<RouteOp> each) {
        for (Pending p : pending.values()) {
            if (p.delete != null) {
                each.accept(p.delete);
            }
            if (p.put != null) {
                each.accept(p.put);
            }
            p.fail(error);
        }
        pending.clear();
        operations = 0;
    }
}
