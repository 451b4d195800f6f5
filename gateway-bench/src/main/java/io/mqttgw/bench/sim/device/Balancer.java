package io.mqttgw.bench.sim.device;

import io.mqttgw.bench.sim.config.BalancePolicy;
import io.mqttgw.bench.sim.config.GatewayNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The bench's L4 balancer over a fleet's nodes, one per process (several balancer instances, as in front of a real
 * fleet): which node a connection attempt goes to, which nodes are out, and what each node did to the devices.
 * A node is out from the moment its port refuses or its readiness check fails ({@link NodeHealth}) until the check
 * passes again. With no node live every node is a candidate again: a device keeps trying the only addresses it has.
 * Thread-safe (atomics only): the event loops of every device call it.
 */
public final class Balancer {
    private final List<GatewayNode> nodes;
    private final BalancePolicy policy;
    private final AtomicIntegerArray live;
    /** Connections open or opening from this process, per node: what least-conn compares. */
    private final AtomicIntegerArray open;
    private final AtomicIntegerArray connected;
    private final LongAdder[] refused;
    private final LongAdder[] failed;
    private final LongAdder[] drops;
    private final LongAdder[] outs;
    private final long[] seeds;
    private final AtomicInteger rotor = new AtomicInteger();

    public Balancer(List<GatewayNode> nodes, BalancePolicy policy) {
        this.nodes = List.copyOf(nodes);
        this.policy = policy;
        int n = nodes.size();
        this.live = new AtomicIntegerArray(n);
        this.open = new AtomicIntegerArray(n);
        this.connected = new AtomicIntegerArray(n);
        this.refused = adders(n);
        this.failed = adders(n);
        this.drops = adders(n);
        this.outs = adders(n);
        this.seeds = new long[n];
        for (int i = 0; i < n; i++) {
            live.set(i, 1);
            // the node's address, not its index, seeds the hash: the same device picks the same node in every
            // process and every run, whatever order the nodes are listed in
            seeds[i] = mix(hash(nodes.get(i).address()));
        }
    }

    private static LongAdder[] adders(int n) {
        LongAdder[] a = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }

    public int size() {
        return nodes.size();
    }

    public GatewayNode node(int index) {
        return nodes.get(index);
    }

    /** The node for {@code clientId}'s next attempt. */
    public int choose(String clientId) {
        return choose(clientId, -1);
    }

    /**
     * The node for {@code clientId}'s next attempt, other than {@code avoid} (the node that just refused it, or -1)
     * while another one is a candidate.
     */
    public int choose(String clientId, int avoid) {
        int n = nodes.size();
        if (n == 1) {
            return 0;
        }
        boolean anyLive = false;
        for (int i = 0; i < n && !anyLive; i++) {
            anyLive = i != avoid && live.get(i) == 1;
        }
        int best = -1;
        if (policy == BalancePolicy.HASH) {
            long key = mix(hash(clientId));
            long bestScore = 0;
            for (int i = 0; i < n; i++) {
                if (candidate(i, avoid, anyLive)) {
                    long score = mix(key ^ seeds[i]);
                    if (best < 0 || Long.compareUnsigned(score, bestScore) > 0) {
                        best = i;
                        bestScore = score;
                    }
                }
            }
        } else {
            // ties go round the nodes, so a burst of attempts that all see equal counts does not pile onto node 0
            int start = Math.floorMod(rotor.getAndIncrement(), n);
            int least = Integer.MAX_VALUE;
            for (int k = 0; k < n; k++) {
                int i = (start + k) % n;
                if (candidate(i, avoid, anyLive) && open.get(i) < least) {
                    best = i;
                    least = open.get(i);
                }
            }
        }
        return best < 0 ? (avoid >= 0 && n > 1 ? (avoid + 1) % n : 0) : best;
    }

    private boolean candidate(int i, int avoid, boolean anyLive) {
        return i != avoid && (!anyLive || live.get(i) == 1);
    }

    public boolean isLive(int node) {
        return live.get(node) == 1;
    }

    /** Takes {@code node} out; true if it was in. */
    public boolean markDown(int node) {
        boolean changed = live.compareAndSet(node, 1, 0);
        if (changed) {
            outs[node].increment();
        }
        return changed;
    }

    /** Puts {@code node} back; true if it was out. */
    public boolean markUp(int node) {
        return live.compareAndSet(node, 0, 1);
    }

    void opened(int node) {
        open.incrementAndGet(node);
    }

    void closed(int node) {
        open.decrementAndGet(node);
    }

    void onConnected(int node) {
        connected.incrementAndGet(node);
    }

    void onDisconnected(int node) {
        connected.decrementAndGet(node);
    }

    /** A TCP connect the node refused (its port is closed): the balancer's own retry, not the device's failure. */
    void refused(int node) {
        refused[node].increment();
    }

    /** A device's failed attempt (what the device saw) on {@code node}. */
    void failed(int node) {
        failed[node].increment();
    }

    /** A device connected to {@code node} lost its connection without the bench closing it. */
    void dropped(int node) {
        drops[node].increment();
    }

    public int connected(int node) {
        return connected.get(node);
    }

    public int open(int node) {
        return open.get(node);
    }

    public long refusedCount(int node) {
        return refused[node].sum();
    }

    public long failedCount(int node) {
        return failed[node].sum();
    }

    public long dropCount(int node) {
        return drops[node].sum();
    }

    public long outCount(int node) {
        return outs[node].sum();
    }

    private static long hash(String s) {
        long h = 1125899906842597L;
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        for (byte x : b) {
            h = 31 * h + x;
        }
        return h;
    }

    /** MurmurHash3's 64-bit finaliser: every input bit moves every output bit, so scores of nodes are independent. */
    private static long mix(long z) {
        z ^= z >>> 33;
        z *= 0xff51afd7ed558ccdL;
        z ^= z >>> 33;
        z *= 0xc4ceb93fe5e1a62bL;
        return z ^ (z >>> 33);
    }
}
