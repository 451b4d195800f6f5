package io.mqttgw.bench.sim.config;

/**
 * How the bench, playing the L4 balancer, picks a live node for a connection attempt: {@code least-conn} (fewest
 * connections open or opening from this process, as HAProxy's leastconn) or {@code hash} (rendezvous hash of the
 * client id: a device keeps its node while that node lives, and only the devices of a node that leaves move).
 */
public enum BalancePolicy {
    LEAST_CONN("least-conn"),
    HASH("hash");

    private final String label;

    BalancePolicy(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static BalancePolicy ofLabel(String text) {
        for (BalancePolicy p : values()) {
            if (p.label.equals(text)) {
                return p;
            }
        }
        throw new BadArgumentException("--balance = '" + text + "'; allowed: least-conn or hash");
    }
}
