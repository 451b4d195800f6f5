package io.mqttgw.bench.sim.scenario;

import io.mqttgw.bench.sim.config.BenchOptions;
import io.mqttgw.bench.sim.config.Scenario;
import io.mqttgw.bench.sim.pki.BenchPki;
import io.mqttgw.bench.sim.worker.WorkerCommand;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Runs one scenario from the coordinator thread: checks the gateway, starts the workers, ramps, reads the gateway
 * before and after (with a GC), runs the scenario's phase, stops the workers. Every wait is bounded by an option
 * ({@code --ramp-timeout}, {@code --hold}, {@code --duration}, {@code --recover-timeout}).
 */
public final class ScenarioRunner {
    private final BenchOptions options;
    private final PrintStream out;
    private final Timeline timeline = new Timeline();
    private final GatewayObserver gateway;
    private final List<GatewaySnapshot> snapshots = new ArrayList<>();
    private final List<WorkerLink> links = new ArrayList<>();
    private final Map<String, Object> summary = new LinkedHashMap<>();
    private final OverloadWatch overload = new OverloadWatch();
    /** CONNACK refusals that another attempt of the same device would get again. */
    private static final java.util.Set<String> PERMANENT_REFUSALS = java.util.Set.of(
            "connack_refused_unsupported_protocol_version", "connack_refused_not_authorized",
            "connack_refused_bad_user_name_or_password", "connack_refused_identifier_rejected",
            "connack_refused_client_identifier_not_valid", "connack_refused_bad_authentication_method",
            "connack_refused_banned");
    private final List<String> problems = new ArrayList<>();
    private long nextTick;

    public ScenarioRunner(BenchOptions options, PrintStream out) {
        this.options = options;
        this.out = out;
        this.gateway = new GatewayObserver(options.target());
    }

    public RunResult run() throws ScenarioException, IOException, InterruptedException {
        String why = gateway.unreachable();
        if (why == null) {
            why = gateway.metricsUnavailable();
        }
        if (why != null) {
            throw new ScenarioException(why);
        }
        BenchPki.open(options.fleet().pkiDir(), options.fleet().algorithm());
        if (!Files.isReadable(options.fleet().serverCa())) {
            throw new ScenarioException("server CA file " + options.fleet().serverCa() + " is not readable");
        }
        Files.createDirectories(options.run().outDir());
        int devices = options.fleet().devices();
        summary.put("scenario", options.scenario().name().toLowerCase(Locale.ROOT));
        summary.put("started", Instant.now().toString());
        summary.put("options", new java.util.TreeMap<>(options.given()));
        summary.put("machine", Map.of("cores", Runtime.getRuntime().availableProcessors(),
                "java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
                "os", System.getProperty("os.name") + " " + System.getProperty("os.version")));
        summary.put("devices", devices);
        summary.put("mqttVersion", options.fleet().protocol().version().label());
        summary.put("client", Map.of(
                "transport", io.netty.channel.epoll.Epoll.isAvailable() ? "epoll" : "nio",
                "tls", io.netty.handler.ssl.OpenSsl.isAvailable() ? io.netty.handler.ssl.OpenSsl.versionString()
                        : "jdk",
                "certificates", options.fleet().certMode().name().toLowerCase(Locale.ROOT) + "/"
                        + options.fleet().algorithm().name().toLowerCase(Locale.ROOT),
                "resume", options.fleet().resume(),
                "tlsGroups", String.join(",", options.fleet().tlsGroups())));
        snapshots.add(gateway.snapshot("before", timeline.seconds(), true));
        try {
            startWorkers();
            boolean rampOk = ramp(devices);
            sleepTicking(options.run().settle(), devices);
            GatewaySnapshot afterRamp = gateway.snapshot("after-ramp", timeline.seconds(), true);
            snapshots.add(afterRamp);
            summary.put("memoryPerConnection", perConnection(snapshots.get(0), afterRamp));
            if (rampOk) {
                switch (options.scenario()) {
                    case PUBLISH -> publish(devices);
                    case STORM -> storm(devices);
                    case FLEET -> new FleetPhases(options, timeline, problems, summary, () -> tick(devices))
                            .run();
                    default -> hold(devices);
                }
            }
        } finally {
            timeline.phase("stop");
            stopWorkers();
        }
        List<Map<String, Object>> episodes = overload.finish(timeline.seconds());
        Map<String, Object> shed = new LinkedHashMap<>();
        shed.put("watched", options.target().hasMetrics());
        shed.put("sampledEverySeconds", OverloadWatch.EVERY_SECONDS);
        shed.put("episodes", episodes);
        summary.put("overload", shed);
        String shedLoad = shedLoadProblem(episodes);
        if (shedLoad != null) {
            problems.add(shedLoad);
        }
        summary.put("gateway", snapshots.stream().map(GatewaySnapshot::toMap).toList());
        summary.put("problems", problems);
        summary.put("ok", problems.isEmpty());
        return new RunResult(problems.isEmpty(), summary, timeline.samples(), timeline.marks(), snapshots);
    }

    private void startWorkers() throws ScenarioException, IOException, InterruptedException {
        int workers = options.fleet().workers();
        if (workers == 0) {
            links.add(new InProcessWorkerLink(options, timeline::accept));
        } else {
            List<String> args = new ArrayList<>();
            args.add(options.scenario().name().toLowerCase(Locale.ROOT));
            options.given().forEach((k, v) -> {
                args.add("--" + k);
                args.add(v);
            });
            for (int i = 0; i < workers; i++) {
                links.add(new ProcessWorkerLink(i, workers, options.run().workerJvmOptions(), args,
                        options.run().outDir(), timeline::accept));
            }
        }
        summary.put("workers", workers);
        out.println("starting " + Math.max(1, workers) + (workers == 0 ? " in-process worker" : " worker process(es)")
                + " for " + options.fleet().devices() + " devices (certificates are issued on first use)");
        for (WorkerLink link : links) {
            if (!link.awaitReady(options.run().rampTimeout())) {
                throw new ScenarioException("worker not ready: " + link.error());
            }
        }
    }

    private boolean ramp(int devices) throws InterruptedException, ScenarioException {
        timeline.phase("ramp");
        double clientCpu = clientCpuSeconds();
        links.forEach(l -> l.send(WorkerCommand.start()));
        long start = System.nanoTime();
        long startMillis = System.currentTimeMillis();
        long deadline = start + options.run().rampTimeout().toNanos();
        Timeline.Totals t = timeline.totals();
        String refusal = null;
        while (t.connected() < devices && System.nanoTime() < deadline && refusal == null) {
            tick(devices);
            t = timeline.totals();
            refusal = refusedOutright(t, devices);
        }
        double seconds = untilLastConnack(t.connected() >= devices, t, startMillis, start);
        Histogram connect = timeline.phaseConnectLatency();
        Map<String, Object> ramp = new LinkedHashMap<>();
        ramp.put("seconds", seconds);
        ramp.put("connected", t.connected());
        ramp.put("handshakesFull", t.handshakesFull());
        ramp.put("handshakesResumed", t.handshakesResumed());
        ramp.put("failures", t.failures());
        ramp.put("startsMissed", t.startsMissed());
        if (t.startsMissed() > 0) {
            out.println("note: the client started " + t.startsMissed() + " first connections over a second later "
                    + "than --ramp-rate " + options.fleet().rampRate() + "/s called for (it was short of CPU): the "
                    + "ramp offered less than its rate");
        }
        ramp.put("connectsPerSecond", t.connected() / Math.max(seconds, 1e-3));
        ramp.put("connectLatencyMs", percentiles(connect));
        ramp.put("clientRssBytes", t.clientRssBytes());
        ramp.put("clientRssBytesPerDevice", t.clientRssBytes() / (double) Math.max(1, t.connected()));
        clientCpu = clientCpuSeconds() - clientCpu;
        ramp.put("clientCpuSeconds", clientCpu);
        ramp.put("clientCpuMillisPerConnect", clientCpu / Math.max(1, t.connected()) * 1e3);
        summary.put("ramp", ramp);
        if (refusal != null) {
            problems.add("the server refused every device with " + refusal + " and none has connected; ramp "
                    + "stopped" + (refusal.endsWith("unsupported_protocol_version")
                    ? " (it does not accept this --mqtt-version)" : " (check its authentication and ACL)"));
            return false;
        }
        if (t.connected() < devices) {
            problems.add("ramp reached " + t.connected() + " of " + devices + " devices in "
                    + options.run().rampTimeout().toSeconds() + " s; failures " + t.failures());
            return false;
        }
        return true;
    }

    private void hold(int devices) throws InterruptedException, ScenarioException {
        timeline.phase("hold");
        Timeline.Totals before = timeline.totals();
        GatewaySnapshot first = gateway.snapshot("hold-start", timeline.seconds(), false);
        snapshots.add(first);
        long end = System.nanoTime() + options.run().hold().toNanos();
        long nextScrape = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < end) {
            tick(devices);
            if (options.scenario() == Scenario.SOAK && System.nanoTime() - nextScrape >= 0) {
                snapshots.add(gateway.snapshot("soak", timeline.seconds(), false));
                nextScrape += Duration.ofSeconds(60).toNanos();
            }
        }
        GatewaySnapshot last = gateway.snapshot("hold-end", timeline.seconds(), true);
        snapshots.add(last);
        Timeline.Totals after = timeline.totals();
        Map<String, Object> hold = new LinkedHashMap<>();
        hold.put("seconds", options.run().hold().toSeconds());
        hold.put("profile", options.profile().enabled() ? "field" : "idle");
        hold.put("timeScale", options.profile().timeScale());
        hold.put("connectedAtEnd", after.connected());
        hold.put("published", after.published() - before.published());
        hold.put("publishedQos1", after.publishedQos1() - before.publishedQos1());
        hold.put("acked", after.acked() - before.acked());
        hold.put("pings", after.pings() - before.pings());
        hold.put("unexpectedDisconnects", after.unexpectedDisconnects() - before.unexpectedDisconnects());
        hold.put("failures", diff(after.failures(), before.failures()));
        hold.put("ackLatencyMs", percentiles(timeline.phaseAckLatency()));
        // its count is the PINGREQs the server answered (pings above are the ones sent)
        hold.put("pingRespMs", percentiles(timeline.phasePingLatency()));
        double cpu = last.cpuSeconds() - first.cpuSeconds();
        double wall = last.t() - first.t();
        hold.put("gatewayCpuSeconds", cpu);
        hold.put("gatewayCpuCoresAverage", cpu / Math.max(wall, 1e-3));
        double msgs = last.publishIn() - first.publishIn();
        hold.put("gatewayPublishIn", msgs);
        hold.put("gatewayCpuMicrosPerMessage", msgs > 0 ? cpu / msgs * 1e6 : Double.NaN);
        hold.put("rssDriftBytes", last.rssBytes() - first.rssBytes());
        hold.put("heapAfterGcDriftBytes", last.heapUsedBytes() - snapshots.get(1).heapUsedBytes());
        summary.put("hold", hold);
        if (after.unexpectedDisconnects() > before.unexpectedDisconnects()) {
            problems.add((after.unexpectedDisconnects() - before.unexpectedDisconnects())
                    + " devices were disconnected while holding");
        }
    }

    private void publish(int devices) throws InterruptedException, ScenarioException {
        Timeline.Totals before = timeline.totals();
        ProcessCpu.Split splitFirst = gateway.cpuSplit();
        GatewaySnapshot first = gateway.snapshot("publish-start", timeline.seconds(), false);
        snapshots.add(first);
        timeline.phase("publish");
        int qos = options.run().publishQos();
        for (WorkerLink link : links) {
            link.send(WorkerCommand.publish((double) options.run().publishRate() / links.size(), qos,
                    options.run().publishBytes()));
        }
        sleepTicking(options.run().duration(), devices);
        links.forEach(l -> l.send(WorkerCommand.stopPublishing()));
        timeline.continuePhase("drain");
        long drainEnd = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        Timeline.Totals after = timeline.totals();
        while (System.nanoTime() < drainEnd) {
            tick(devices);
            after = timeline.totals();
            if (qos == 0 || after.acked() - before.acked() >= after.publishedQos1() - before.publishedQos1()) {
                tick(devices);
                after = timeline.totals();
                break;
            }
        }
        GatewaySnapshot last = gateway.snapshot("publish-end", timeline.seconds(), false);
        ProcessCpu.Split splitLast = gateway.cpuSplit();
        snapshots.add(last);
        long sent = after.published() - before.published();
        long sentQos1 = after.publishedQos1() - before.publishedQos1();
        long acked = after.acked() - before.acked();
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("targetRate", options.run().publishRate());
        p.put("qos", qos);
        p.put("payloadBytes", options.run().publishBytes());
        p.put("seconds", options.run().duration().toSeconds());
        p.put("published", sent);
        p.put("publishedQos1", sentQos1);
        p.put("acked", acked);
        p.put("failures", diff(after.failures(), before.failures()));
        p.put("achievedRate", sent / (double) options.run().duration().toSeconds());
        p.put("ackLatencyMs", percentiles(timeline.phaseAckLatency()));
        double cpu = last.cpuSeconds() - first.cpuSeconds();
        double msgs = last.publishIn() - first.publishIn();
        p.put("gatewayCpuSeconds", cpu);
        p.put("gatewayPublishIn", msgs);
        p.put("gatewayCpuMicrosPerMessage", msgs > 0 ? cpu / msgs * 1e6 : Double.NaN);
        // by kind of thread: a JVM's JIT compiler threads still compile for minutes after start, and its collector
        // threads are apart from the I/O; per message the gateway counted, or (Mosquitto) the bench had acknowledged
        double perCount = msgs > 0 ? msgs : acked;
        if (splitFirst != null && splitLast != null && perCount > 0) {
            p.put("gatewayCpuSplitMicrosPerMessage", splitLast.minus(splitFirst).microsPer(perCount));
        }
        summary.put("publish", p);
        if (qos == 1 && acked < sentQos1) {
            problems.add((sentQos1 - acked) + " of " + sentQos1 + " QoS 1 PUBLISHes were not acknowledged");
        }
        if (after.unexpectedDisconnects() > before.unexpectedDisconnects()) {
            problems.add((after.unexpectedDisconnects() - before.unexpectedDisconnects())
                    + " devices were disconnected while publishing");
        }
    }

    private void storm(int devices) throws InterruptedException, ScenarioException {
        sleepTicking(Duration.ofSeconds(2), devices);
        Timeline.Totals before = timeline.totals();
        GatewaySnapshot first = gateway.snapshot("storm-start", timeline.seconds(), false);
        snapshots.add(first);
        double clientFirst = clientCpuSeconds();
        double clientQuiet = Double.NaN;
        timeline.phase("storm");
        long start = System.nanoTime();
        long startMillis = System.currentTimeMillis();
        links.forEach(l -> l.send(WorkerCommand.drop(options.run().dropFraction())));
        long deadline = start + options.run().recoverTimeout().toNanos();
        Timeline.Totals t = before;
        // wait until the drop shows in the reports, then until everyone is back
        while (System.nanoTime() < deadline && t.dropped() == before.dropped() && options.run().dropFraction() > 0) {
            tick(devices);
            t = timeline.totals();
        }
        // --reconnect-after: the dropped devices wait; read the server just before they return, so the CPU from
        // here to storm-end is the reconnects' alone (accept, TLS, CONNECT, SUBSCRIBE), not the closes too
        GatewaySnapshot quiet = null;
        ProcessCpu.Split splitQuiet = null;
        long reconnectAfter = options.run().reconnectAfter().toNanos();
        if (reconnectAfter > 0) {
            while (System.nanoTime() < start + reconnectAfter - 1_500_000_000L) {
                tick(devices);
            }
            // the split first: the snapshot reads the CPU and then scrapes /metrics, so both readings precede that
            splitQuiet = gateway.cpuSplit();
            quiet = gateway.snapshot("storm-dropped", timeline.seconds(), false);
            snapshots.add(quiet);
            clientQuiet = clientCpuSeconds();
            long left = start + reconnectAfter - System.nanoTime();
            if (left > 0) {
                Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
            }
            start += reconnectAfter;
            startMillis += options.run().reconnectAfter().toMillis();
            deadline += reconnectAfter;
        }
        // back = every dropped device got a new CONNACK and the count is whole again; the count alone can read
        // whole in the first sample after the drop when the server has not closed the dropped connections yet
        while (System.nanoTime() < deadline && (t.connected() < before.connected()
                || t.connacks() - before.connacks() < t.dropped() - before.dropped())) {
            tick(devices);
            t = timeline.totals();
        }
        double polled = (System.nanoTime() - start) / 1e9;
        double seconds = untilLastConnack(t.connected() >= before.connected()
                && t.connacks() - before.connacks() >= t.dropped() - before.dropped(), t, startMillis, start);
        sleepTicking(Duration.ofSeconds(2), devices);
        ProcessCpu.Split splitLast = gateway.cpuSplit();
        GatewaySnapshot last = gateway.snapshot("storm-end", timeline.seconds(), false);
        snapshots.add(last);
        double clientLast = clientCpuSeconds();
        Timeline.Totals after = timeline.totals();
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("dropFraction", options.run().dropFraction());
        s.put("connectedBefore", before.connected());
        s.put("dropped", after.dropped() - before.dropped());
        s.put("reconnectAfterSeconds", options.run().reconnectAfter().toMillis() / 1e3);
        s.put("recovered", t.connected() >= before.connected());
        s.put("secondsToRecover", seconds);
        s.put("secondsToRecoverPolled", polled);
        s.put("collateralDisconnects", after.unexpectedDisconnects() - before.unexpectedDisconnects());
        s.put("failedAttempts", diff(after.failures(), before.failures()));
        s.put("clientHandshakesFull", after.handshakesFull() - before.handshakesFull());
        s.put("clientHandshakesResumed", after.handshakesResumed() - before.handshakesResumed());
        s.put("resumeOffered", options.fleet().resume());
        double cpu = last.cpuSeconds() - first.cpuSeconds();
        double newHs = last.handshakesNew() - first.handshakesNew();
        double resumedHs = last.handshakesResumed() - first.handshakesResumed();
        s.put("gatewayHandshakesNew", newHs);
        s.put("gatewayHandshakesResumed", resumedHs);
        s.put("gatewayCpuSeconds", cpu);
        s.put("gatewayCpuMillisPerHandshake", newHs + resumedHs > 0 ? cpu / (newHs + resumedHs) * 1e3 : Double.NaN);
        s.put("handshakesPerSecond", (newHs + resumedHs) / Math.max(seconds, 1e-3));
        s.put("clientCpuSeconds", clientLast - clientFirst);
        if (quiet != null) {
            // only the reconnects (accept, TLS, CONNECT, SUBSCRIBE, and any failed attempt): the closes were done
            // when the server was read at storm-dropped; per dropped device, so a server without metrics has it too
            long reconnects = after.dropped() - before.dropped();
            s.put("connectionsOpenWhileDropped", quiet.connectionsOpen());
            s.put("gatewayCpuMillisPerReconnect", reconnects > 0
                    ? (last.cpuSeconds() - quiet.cpuSeconds()) / reconnects * 1e3 : Double.NaN);
            // the client's share of the same window: on one machine the two compete for the cores, so a recovery
            // time can be bounded by the client (gateway + client CPU over the cores is the floor)
            s.put("clientCpuMillisPerReconnect", reconnects > 0 ? (clientLast - clientQuiet) / reconnects * 1e3
                    : Double.NaN);
            // the same CPU by kind of thread: on one machine the system time moves most between rounds (loopback
            // runs a packet's receive path in whichever process it can), and JIT time says how warm "warm" was
            if (reconnects > 0 && splitQuiet != null && splitLast != null) {
                s.put("gatewayCpuSplitMillisPerReconnect", splitLast.minus(splitQuiet).millisPer(reconnects));
            }
        }
        s.put("connectLatencyMs", percentiles(timeline.phaseConnectLatency()));
        summary.put("storm", s);
        if (t.connected() < before.connected()) {
            problems.add("storm: only " + t.connected() + " of " + before.connected() + " back after "
                    + options.run().recoverTimeout().toSeconds() + " s");
        }
    }

    /** CPU seconds of the bench so far: this coordinator's process and every worker process. */
    private double clientCpuSeconds() {
        double cpu = ProcessCpu.seconds(ProcessHandle.current().pid());
        for (WorkerLink link : links) {
            cpu += link.cpuSeconds();
        }
        return cpu;
    }

    /** The problem that makes the verdict "not met" when the gateway shed load, with the episodes' times; or null. */
    static String shedLoadProblem(List<Map<String, Object>> episodes) {
        if (episodes.isEmpty()) {
            return null;
        }
        return "the gateway shed load during the run: " + episodes.stream()
                .map(e -> e.get("kind") + String.format(Locale.ROOT, " %.0f-%.0f s",
                        (Double) e.get("fromSeconds"), (Double) e.get("toSeconds")))
                .collect(java.util.stream.Collectors.joining(", "));
    }

    /**
     * The CONNACK refusal that turned away every attempt so far, when no device ever got in and at least
     * {@code min(devices, 20)} tried: a refusal no retry cures (unsupported protocol version, not authorized, bad
     * credentials, client identifier rejected), so waiting for the ramp timeout would only repeat it. Else null.
     */
    static String refusedOutright(Timeline.Totals t, int devices) {
        if (t.connacks() > 0 || t.connected() > 0) {
            return null;
        }
        long attempts = 0;
        String only = null;
        for (Map.Entry<String, Long> e : t.failures().entrySet()) {
            if (e.getKey().equals(io.mqttgw.bench.sim.device.FailureReasons.DEVICE_FAILED_AGAIN)) {
                continue;
            }
            if (!PERMANENT_REFUSALS.contains(e.getKey()) || (only != null && !only.equals(e.getKey()))) {
                return null;
            }
            only = e.getKey();
            attempts += e.getValue();
        }
        return only != null && attempts >= Math.min(devices, 20) ? only : null;
    }

    static Map<String, Long> diff(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> d = new java.util.TreeMap<>();
        after.forEach((k, v) -> {
            long x = v - before.getOrDefault(k, 0L);
            if (x != 0) {
                d.put(k, x);
            }
        });
        return d;
    }

    private static Map<String, Object> perConnection(GatewaySnapshot before, GatewaySnapshot after) {
        Map<String, Object> m = new LinkedHashMap<>();
        double n = after.connectionsOpen() - before.connectionsOpen();
        m.put("connections", n);
        m.put("rssBytes", (after.rssBytes() - before.rssBytes()) / n);
        m.put("heapAfterGcBytes", (after.heapUsedBytes() - before.heapUsedBytes()) / n);
        m.put("directBufferBytes", (after.directBufferBytes() - before.directBufferBytes()) / n);
        m.put("nettyDirectBytes", (after.nettyDirectBytes() - before.nettyDirectBytes()) / n);
        m.put("gcBeforeRead", after.gcRun() > 0 && before.gcRun() > 0);
        return m;
    }

    static Map<String, Object> percentiles(Histogram h) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("count", h.getTotalCount());
        m.put("p50", Timeline.millis(h, 50));
        m.put("p90", Timeline.millis(h, 90));
        m.put("p99", Timeline.millis(h, 99));
        m.put("p999", Timeline.millis(h, 99.9));
        m.put("max", h.getTotalCount() == 0 ? Double.NaN : h.getMaxValue() / 1000.0);
        return m;
    }

    private void sleepTicking(Duration d, int devices) throws InterruptedException, ScenarioException {
        long end = System.nanoTime() + d.toNanos();
        while (System.nanoTime() < end) {
            tick(devices);
        }
    }

    /**
     * Seconds from {@code startNanos} to the end of a phase: when it is {@code done}, the latest CONNACK's own time
     * (the workers report once a second, so the poll that sees the end is up to a second late), else until now.
     */
    private static double untilLastConnack(boolean done, Timeline.Totals t, long startMillis, long startNanos) {
        double polled = (System.nanoTime() - startNanos) / 1e9;
        return done && t.lastConnackMillis() > startMillis
                ? Math.min(polled, (t.lastConnackMillis() - startMillis) / 1e3) : polled;
    }

    /**
     * Waits for the next whole second of the run's clock, then samples and prints the live line; fails if a worker
     * died.
     */
    private void tick(int devices) throws InterruptedException, ScenarioException {
        long now = System.nanoTime();
        if (nextTick == 0 || nextTick - now > 2_000_000_000L || now - nextTick > 2_000_000_000L) {
            nextTick = now + 1_000_000_000L;
        }
        long wait = nextTick - now;
        if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
        nextTick += 1_000_000_000L;
        for (WorkerLink l : links) {
            if (l.error() != null && l instanceof ProcessWorkerLink) {
                throw new ScenarioException("worker failed: " + l.error());
            }
        }
        out.println(LiveLine.format(timeline.tick(), devices));
        double t = timeline.seconds();
        if (options.target().hasMetrics() && overload.due(t)) {
            double[] reading = gateway.overloadReading();
            overload.observe(t, reading[0], reading[1]);
        }
    }

    private void stopWorkers() {
        List<Thread> closers = new ArrayList<>();
        for (WorkerLink l : links) {
            Thread t = new Thread(l::close, "close-worker");
            t.start();
            closers.add(t);
        }
        for (Thread t : closers) {
            try {
                t.join(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
