package io.mqttgw.bench.sim.config;

import java.util.List;

/**
 * What {@code bench fleet} does to the nodes once the devices are steady: {@code hold} nothing, {@code kill} sends
 * SIGKILL to node {@code killNode}'s process (its pid from {@code pids}), {@code rolling} runs
 * {@code restartCommand} for every node in turn ({@code {node}} replaced by its index), waiting for the command to
 * end and the devices to be back before the next. Immutable.
 */
public record NodeAction(Kind kind, int killNode, List<Long> pids, String restartCommand) {
    public enum Kind { HOLD, KILL, ROLLING }

    public NodeAction {
        pids = List.copyOf(pids);
    }

    public static NodeAction hold() {
        return new NodeAction(Kind.HOLD, -1, List.of(), null);
    }
}
