package io.mqttgw.bench.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.bench.sim.config.BalancePolicy;
import io.mqttgw.bench.sim.config.GatewayNode;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BalancerTest {
    private static final List<GatewayNode> THREE = GatewayNode.parseList("nodes",
            "127.0.0.1:18831/19091,127.0.0.1:18832/19092,127.0.0.1:18833/19093");

    @Test
    void leastConnSpreadsAttemptsEvenlyOverLiveNodes() {
        Balancer b = new Balancer(THREE, BalancePolicy.LEAST_CONN);
        for (int i = 0; i < 300; i++) {
            b.opened(b.choose("dev-" + i));
        }
        assertEquals(List.of(100, 100, 100), List.of(b.open(0), b.open(1), b.open(2)));
    }

    @Test
    void leastConnSendsNewAttemptsToTheEmptiestNode() {
        Balancer b = new Balancer(THREE, BalancePolicy.LEAST_CONN);
        for (int i = 0; i < 5; i++) {
            b.opened(0);
            b.opened(1);
        }
        assertEquals(2, b.choose("dev-x"));
    }

    @Test
    void aNodeTakenOutGetsNoAttemptsUntilItIsBack() {
        Balancer b = new Balancer(THREE, BalancePolicy.LEAST_CONN);
        assertTrue(b.markDown(2));
        assertFalse(b.markDown(2), "already out");
        // node 2 has the fewest connections (none), as a freshly dead node does: it must still get nothing
        for (int i = 0; i < 10; i++) {
            b.opened(0);
            b.opened(1);
        }
        for (int i = 0; i < 100; i++) {
            assertNotEquals(2, b.choose("dev-" + i));
        }
        assertEquals(1, b.outCount(2));
        assertTrue(b.markUp(2));
        assertEquals(2, b.choose("dev-y"));
    }

    @Test
    void hashKeepsEveryDeviceOnItsNodeAndMovesOnlyTheDevicesOfANodeThatLeaves() {
        Balancer b = new Balancer(THREE, BalancePolicy.HASH);
        Map<String, Integer> before = new HashMap<>();
        int[] perNode = new int[3];
        for (int i = 0; i < 3000; i++) {
            String id = "dev-" + i;
            int n = b.choose(id);
            assertEquals(n, b.choose(id), "stable while nothing changes");
            before.put(id, n);
            perNode[n]++;
        }
        for (int n : perNode) {
            assertTrue(n > 800 && n < 1200, "roughly a third each: " + java.util.Arrays.toString(perNode));
        }
        b.markDown(1);
        int moved = 0;
        for (Map.Entry<String, Integer> e : before.entrySet()) {
            int now = b.choose(e.getKey());
            assertNotEquals(1, now);
            if (e.getValue() != 1) {
                assertEquals(e.getValue(), now, "a device of a surviving node stays: " + e.getKey());
            } else {
                moved++;
            }
        }
        assertEquals(perNode[1], moved);
    }

    @Test
    void hashGivesTheSameNodeWhateverOrderTheNodesAreListedIn() {
        Balancer forward = new Balancer(THREE, BalancePolicy.HASH);
        Balancer reversed = new Balancer(List.of(THREE.get(2), THREE.get(1), THREE.get(0)), BalancePolicy.HASH);
        for (int i = 0; i < 200; i++) {
            String id = "dev-" + i;
            assertEquals(THREE.get(forward.choose(id)), reversed.node(reversed.choose(id)));
        }
    }

    @Test
    void anAttemptRefusedByANodeGoesToAnotherOne() {
        for (BalancePolicy p : BalancePolicy.values()) {
            Balancer b = new Balancer(THREE, p);
            for (int i = 0; i < 100; i++) {
                String id = "dev-" + i;
                int first = b.choose(id);
                assertNotEquals(first, b.choose(id, first), p + " " + id);
            }
        }
    }

    @Test
    void withEveryNodeOutEveryNodeIsTriedAgain() {
        Balancer b = new Balancer(THREE, BalancePolicy.LEAST_CONN);
        b.markDown(0);
        b.markDown(1);
        b.markDown(2);
        boolean[] seen = new boolean[3];
        for (int i = 0; i < 30; i++) {
            seen[b.choose("dev-" + i)] = true;
        }
        assertTrue(seen[0] && seen[1] && seen[2], "a device keeps trying the addresses it has");
    }

    @Test
    void countsWhatEachNodeDidToTheDevices() {
        Balancer b = new Balancer(THREE, BalancePolicy.LEAST_CONN);
        b.onConnected(0);
        b.onConnected(0);
        b.onDisconnected(0);
        b.dropped(0);
        b.refused(1);
        b.failed(2);
        assertEquals(1, b.connected(0));
        assertEquals(1, b.dropCount(0));
        assertEquals(1, b.refusedCount(1));
        assertEquals(1, b.failedCount(2));
        assertEquals(0, b.dropCount(1) + b.refusedCount(0) + b.failedCount(0));
    }
}
