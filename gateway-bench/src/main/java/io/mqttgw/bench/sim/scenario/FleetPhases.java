package io.mqttgw.bench.sim.scenario;

import io.mqttgw.bench.sim.config.BenchOptions;
import io.mqttgw.bench.sim.config.GatewayNode;
import io.mqttgw.bench.sim.config.NodeAction;
import io.mqttgw.bench.sim.device.DeviceFleet;
import io.mqttgw.bench.sim.device.FailureReasons;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The phases of {@code bench fleet} after the ramp: hold, then kill a node or restart each in turn, and what the
 * devices saw, read from the balancer's counters summed over the workers. Runs on the coordinator thread, which
 * {@link Ticker#tick} keeps sampling once a second; writes {@code fleet} into the summary and its shortfalls into
 * the problems.
 */
final class FleetPhases {
    /** One second of the coordinator's loop: sample, print the live line, fail if a worker died. */
    interface Ticker {
        void tick() throws InterruptedException, ScenarioException;
    }

    private final BenchOptions options;
    private final Timeline timeline;
    private final List<String> problems;
    private final Map<String, Object> summary;
    private final Ticker ticker;

    FleetPhases(BenchOptions options, Timeline timeline, List<String> problems, Map<String, Object> summary,
                Ticker ticker) {
        this.options = options;
        this.timeline = timeline;
        this.problems = problems;
        this.summary = summary;
        this.ticker = ticker;
    }

    private void sleepTicking(Duration d) throws InterruptedException, ScenarioException {
        long end = System.nanoTime() + d.toNanos();
        while (System.nanoTime() < end) {
            ticker.tick();
        }
    }

    private static Map<String, Long> diff(Map<String, Long> after, Map<String, Long> before) {
        return ScenarioRunner.diff(after, before);
    }

    private static Map<String, Object> percentiles(org.HdrHistogram.Histogram h) {
        return ScenarioRunner.percentiles(h);
    }

    /**
     * {@code bench fleet}: holds the devices spread over the nodes for {@code --hold}, then kills one node or
     * restarts each in turn, and reads what the devices saw from the balancer's counters.
     */
    void run() throws InterruptedException, ScenarioException, IOException {
        NodeAction action = options.run().nodeAction();
        List<GatewayNode> nodes = options.target().nodes();
        timeline.phase("steady");
        sleepTicking(options.run().hold());
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("nodes", nodes.stream().map(GatewayNode::address).toList());
        f.put("balance", options.target().balance().label());
        f.put("healthIntervalMillis", options.target().healthInterval().toMillis());
        f.put("cleanSession", options.fleet().protocol().cleanSession());
        f.put("action", action.kind().name().toLowerCase(Locale.ROOT));
        Timeline.Totals before = timeline.totals();
        Map<String, Long> fleetBefore = timeline.fleetTotals();
        f.put("connectedBefore", before.connected());
        f.put("nodeConnectedBefore", Timeline.nodeConnected(fleetBefore));
        summary.put("fleet", f);
        switch (action.kind()) {
            case KILL -> kill(action, f, before, fleetBefore);
            case ROLLING -> rolling(action, f, before, fleetBefore);
            default -> { }
        }
        // longer than a PUBACK may take before it counts as overdue, and a report interval more: a message still
        // overdue after it was never acknowledged, whereas one sent meanwhile is not yet in question
        sleepTicking(Duration.ofNanos(DeviceFleet.OVERDUE_NANOS).plusSeconds(3));
        Map<String, Long> fleetAfter = timeline.fleetTotals();
        Timeline.Totals after = timeline.totals();
        f.put("connectedAfter", after.connected());
        f.put("nodeConnectedAfter", Timeline.nodeConnected(fleetAfter));
        f.put("nodeCounters", perNode(fleetAfter, fleetBefore, nodes.size()));
        f.put("qos1Sent", after.publishedQos1() - before.publishedQos1());
        f.put("qos1Acked", after.acked() - before.acked());
        // sent on a connection that ended before its PUBACK: the device never learnt the message arrived
        f.put("qos1Unacknowledged", delta(fleetAfter, fleetBefore, "qos1Unacked"));
        f.put("qos1Resent", delta(fleetAfter, fleetBefore, "qos1Resent"));
        f.put("qos1AckedAfterResend", delta(fleetAfter, fleetBefore, "qos1AckedAfterResend"));
        f.put("qos1WindowFull", delta(fleetAfter, fleetBefore, "qos1WindowFull"));
        // sent and never acknowledged: still waiting at the end, or given up by a clean-session device
        long lost = fleetAfter.getOrDefault("qos1Overdue", 0L) + delta(fleetAfter, fleetBefore, "qos1Abandoned");
        f.put("qos1Lost", lost);
        if (lost > 0) {
            problems.add("fleet: " + lost + " QoS 1 messages were never acknowledged");
        }
    }

    /** SIGKILL to one node; waits until every device it held has had a CONNACK from another node. */
    private void kill(NodeAction action, Map<String, Object> f, Timeline.Totals before,
                      Map<String, Long> fleetBefore) throws InterruptedException, ScenarioException {
        int victim = action.killNode();
        long pid = action.pids().get(victim);
        long held = fleetBefore.getOrDefault("node." + victim + ".connected", 0L);
        ProcessHandle process = ProcessHandle.of(pid).orElseThrow(
                () -> new ScenarioException("node " + victim + " (pid " + pid + ") is not running"));
        timeline.phase("kill");
        long start = System.nanoTime();
        long startMillis = System.currentTimeMillis();
        process.destroyForcibly();
        f.put("killedNode", victim);
        f.put("killedPid", pid);
        f.put("killEpochMillis", startMillis);
        f.put("devicesOnKilledNode", held);
        long deadline = start + options.run().recoverTimeout().toNanos();
        boolean back = false;
        while (System.nanoTime() < deadline && !back) {
            ticker.tick();
            back = allBack(before, fleetBefore, held);
        }
        Map<String, Long> now = timeline.fleetTotals();
        Timeline.Totals t = timeline.totals();
        double polled = (System.nanoTime() - start) / 1e9;
        long lastReturn = now.getOrDefault("max.lastReturnEpochMillis", 0L);
        f.put("allBack", back);
        f.put("secondsUntilAllBack", back && lastReturn > startMillis ? (lastReturn - startMillis) / 1e3 : polled);
        wave(f, before, fleetBefore, t, now, victim);
        if (!back) {
            problems.add("fleet: the devices of the killed node were not all back after "
                    + options.run().recoverTimeout().toSeconds() + " s");
        }
    }

    /** Runs the restart command for every node in turn, each time waiting until every device is back. */
    private void rolling(NodeAction action, Map<String, Object> f, Timeline.Totals before,
                         Map<String, Long> fleetBefore) throws InterruptedException, ScenarioException, IOException {
        timeline.phase("rolling");
        long start = System.nanoTime();
        List<Map<String, Object>> steps = new ArrayList<>();
        for (int i = 0; i < options.target().nodes().size(); i++) {
            timeline.continuePhase("restart-" + i);
            Timeline.Totals b = timeline.totals();
            Map<String, Long> fb = timeline.fleetTotals();
            long stepStart = System.nanoTime();
            Process p = new ProcessBuilder("sh", "-c", action.restartCommand().replace("{node}", Integer.toString(i)))
                    .redirectErrorStream(true)
                    .redirectOutput(options.run().outDir().resolve("restart-" + i + ".log").toFile()).start();
            long deadline = stepStart + options.run().recoverTimeout().toNanos();
            while (p.isAlive() && System.nanoTime() < deadline) {
                ticker.tick();
            }
            Map<String, Object> step = new LinkedHashMap<>();
            step.put("node", i);
            if (p.isAlive()) {
                p.destroyForcibly();
                problems.add("fleet: the restart command of node " + i + " did not end within "
                        + options.run().recoverTimeout().toSeconds() + " s");
                step.put("exitStatus", null);
            } else {
                step.put("exitStatus", p.exitValue());
                if (p.exitValue() != 0) {
                    problems.add("fleet: the restart command of node " + i + " exited with " + p.exitValue()
                            + " (see restart-" + i + ".log)");
                }
            }
            step.put("commandSeconds", (System.nanoTime() - stepStart) / 1e9);
            boolean back = false;
            while (System.nanoTime() < deadline && !back) {
                back = allBack(b, fb, 0);
                if (!back) {
                    ticker.tick();
                }
            }
            step.put("allBack", back);
            step.put("seconds", (System.nanoTime() - stepStart) / 1e9);
            Timeline.Totals t = timeline.totals();
            Map<String, Long> now = timeline.fleetTotals();
            step.put("failedAttempts", diff(t.failures(), b.failures()));
            step.put("refusedRedispatched", sumNodes(now, fb, "refused"));
            step.put("devicesMoved", delta(now, fb, "returns"));
            step.put("qos1Unacknowledged", delta(now, fb, "qos1Unacked"));
            step.put("qos1Resent", delta(now, fb, "qos1Resent"));
            steps.add(step);
            if (!back) {
                problems.add("fleet: devices not all back " + options.run().recoverTimeout().toSeconds()
                        + " s after the restart of node " + i + " began");
                break;
            }
        }
        f.put("restarts", steps);
        f.put("totalSeconds", (System.nanoTime() - start) / 1e9);
        wave(f, before, fleetBefore, timeline.totals(), timeline.fleetTotals(), -1);
    }

    /**
     * Every device that lost its connection since {@code before} has had a CONNACK since, at least {@code held}
     * of them (the dead node's devices; 0 when unknown), and the count is whole again.
     */
    private boolean allBack(Timeline.Totals before, Map<String, Long> fleetBefore, long held) {
        Timeline.Totals t = timeline.totals();
        Map<String, Long> now = timeline.fleetTotals();
        long lost = t.unexpectedDisconnects() - before.unexpectedDisconnects();
        return lost >= held && now.getOrDefault("awaitingReturn", 0L) <= fleetBefore.getOrDefault("awaitingReturn", 0L)
                && t.connected() >= before.connected();
    }

    /** What the devices saw during the wave; {@code victim} is the killed node (its drops are not collateral). */
    private void wave(Map<String, Object> f, Timeline.Totals before, Map<String, Long> fleetBefore, Timeline.Totals t,
                      Map<String, Long> now, int victim) {
        long returns = delta(now, fleetBefore, "returns");
        f.put("devicesMoved", returns);
        f.put("failedAttempts", diff(t.failures(), before.failures()));
        f.put("devicesFailedMoreThanOnce", t.failures().getOrDefault(FailureReasons.DEVICE_FAILED_AGAIN, 0L)
                - before.failures().getOrDefault(FailureReasons.DEVICE_FAILED_AGAIN, 0L));
        f.put("refusedRedispatched", sumNodes(now, fleetBefore, "refused"));
        f.put("resumedShare", returns > 0 ? delta(now, fleetBefore, "returnsResumed") / (double) returns
                : Double.NaN);
        f.put("sessionPresentShare", returns > 0 ? delta(now, fleetBefore, "returnsSessionPresent")
                / (double) returns : Double.NaN);
        f.put("meanReturnSeconds", returns > 0 ? delta(now, fleetBefore, "returnMillisTotal") / 1e3 / returns
                : Double.NaN);
        // the longest since the run began: a wave's own when nothing was lost before it
        f.put("maxReturnSeconds", now.getOrDefault("max.returnMillis", 0L) / 1e3);
        long collateral = 0;
        if (victim >= 0) {
            for (int i = 0; i < options.target().nodes().size(); i++) {
                if (i != victim) {
                    collateral += delta(now, fleetBefore, "node." + i + ".drops");
                }
            }
            f.put("collateralDrops", collateral);
            if (collateral > 0) {
                problems.add("fleet: " + collateral + " devices on surviving nodes lost their connection");
            }
        }
        // the dead or restarting node answers no PINGREQ, so every answer measured comes from a node that serves
        f.put("pingRespMs", percentiles(timeline.phasePingLatency()));
    }

    private static long delta(Map<String, Long> now, Map<String, Long> before, String key) {
        return now.getOrDefault(key, 0L) - before.getOrDefault(key, 0L);
    }

    private static long sumNodes(Map<String, Long> now, Map<String, Long> before, String counter) {
        long sum = 0;
        for (int i = 0; now.containsKey("node." + i + "." + counter); i++) {
            sum += delta(now, before, "node." + i + "." + counter);
        }
        return sum;
    }

    private static List<Map<String, Object>> perNode(Map<String, Long> now, Map<String, Long> before, int nodes) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            Map<String, Object> m = new LinkedHashMap<>();
            String n = "node." + i + ".";
            m.put("connected", now.getOrDefault(n + "connected", 0L));
            for (String c : List.of("refused", "failed", "drops", "outs")) {
                m.put(c, delta(now, before, n + c));
            }
            out.add(m);
        }
        return out;
    }
}
