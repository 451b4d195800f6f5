package io.mqttgw.bench.sim.cli;

import io.mqttgw.bench.sim.config.BackoffPolicy;
import io.mqttgw.bench.sim.config.BadArgumentException;
import io.mqttgw.bench.sim.config.BenchOptions;
import io.mqttgw.bench.sim.config.CertMode;
import io.mqttgw.bench.sim.config.BalancePolicy;
import io.mqttgw.bench.sim.config.FleetOptions;
import io.mqttgw.bench.sim.config.GatewayNode;
import io.mqttgw.bench.sim.config.GatewayTarget;
import io.mqttgw.bench.sim.config.KeyAlgorithm;
import io.mqttgw.bench.sim.config.MqttVersion;
import io.mqttgw.bench.sim.config.NodeAction;
import io.mqttgw.bench.sim.config.ProtocolOptions;
import io.mqttgw.bench.sim.config.Scenario;
import io.mqttgw.bench.sim.config.ScenarioOptions;
import io.mqttgw.bench.sim.config.SourceAddresses;
import io.mqttgw.bench.sim.config.TrafficProfile;
import io.mqttgw.core.config.CoreConfigKeys;
import io.mqttgw.core.config.ValueParsers;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bench connect|publish|storm|soak|fleet}: the options of one scenario run, typed by picocli and range-checked
 * by {@link #toOptions()} into a {@link BenchOptions}; {@link #call()} runs it through {@link ScenarioRun}. The same
 * class serves the five scenario subcommands (the scenario is a constructor argument). Main thread only.
 */
@Command(mixinStandardHelpOptions = true, versionProvider = BenchVersion.class, sortOptions = false,
        usageHelpAutoWidth = true, showDefaultValues = false,
        footer = {"", "Durations are written 500ms, 10s, 2m or 1h. Exit status: 0 goal met, 1 not met, 2 bad "
                + "arguments, 3 gateway unreachable or a worker failed."})
public final class ScenarioCommand implements Callable<Integer> {
    private static final int MAX_BYTES = 256 * 1024;
    private static final Duration DAY = Duration.ofHours(24);
    private static final Duration MIN_INTERVAL = Duration.ofMillis(10);

    private final Scenario scenario;

    @Spec
    CommandSpec spec;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "gateway host (default ${DEFAULT-VALUE})")
    String host;
    @Option(names = "--port", defaultValue = "8883", description = "gateway MQTT/TLS port (default ${DEFAULT-VALUE})")
    int port;
    @Option(names = "--admin", defaultValue = "127.0.0.1:9090", paramLabel = "HOST:PORT|none",
            description = "gateway admin endpoint for /metrics, or none (default ${DEFAULT-VALUE})")
    String admin;
    @Option(names = "--gateway-pid", paramLabel = "PID", description = "server process id: CPU and RSS from /proc; "
            + "jcmd GC.run before memory is read only if it is a JVM")
    Long gatewayPid;
    @Option(names = "--nodes", paramLabel = "HOST:PORT[/ADMIN_PORT],...",
            description = "several gateway nodes: the bench plays the L4 balancer over them (--balance), polls each "
                    + "node's http://HOST:ADMIN_PORT/health/ready (or HOST:PORT@URL; without one, its port) every "
                    + "--health-interval, takes a node out when it fails or refuses a connection and sends the "
                    + "attempt to another node; --host and --port are then the first node's")
    String nodes;
    @Option(names = "--balance", defaultValue = "least-conn", paramLabel = "least-conn|hash",
            description = "with --nodes: fewest connections from this process, or rendezvous hash of the client id "
                    + "(default ${DEFAULT-VALUE})")
    String balance;
    @Option(names = "--health-interval", defaultValue = "1s", paramLabel = "DURATION",
            description = "with --nodes: how often each node's readiness is checked (default ${DEFAULT-VALUE})")
    Duration healthInterval;
    @Option(names = "--clean-session", arity = "1", defaultValue = "true",
            completionCandidates = Converters.Booleans.class,
            description = "false asks for a persistent session (3.1.1 clean session 0, 5.0 clean start 0 with "
                    + "--session-expiry); reports how many returning devices were told session present "
                    + "(default ${DEFAULT-VALUE})")
    boolean cleanSession;
    @Option(names = "--action", defaultValue = "hold", paramLabel = "hold|kill|rolling",
            description = "fleet: after --hold, nothing, SIGKILL node --kill-node (--node-pids), or run "
                    + "--restart-command for every node in turn (default ${DEFAULT-VALUE})")
    String action;
    @Option(names = "--kill-node", paramLabel = "INDEX",
            description = "fleet --action kill: index in --nodes of the node to kill (default: the last)")
    Integer killNode;
    @Option(names = "--node-pids", paramLabel = "PID,...",
            description = "fleet: process ids of the --nodes, in the same order")
    String nodePids;
    @Option(names = "--restart-command", paramLabel = "COMMAND",
            description = "fleet --action rolling: shell command restarting node {node} (its index), e.g. one that "
                    + "sends SIGTERM, waits for the exit and starts it again; it must end when the node is ready")
    String restartCommand;
    @Option(names = "--mqtt-version", defaultValue = "3.1.1", paramLabel = "3.1.1|5",
            completionCandidates = Converters.MqttVersions.class,
            description = "MQTT protocol of the devices: ${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE})")
    MqttVersion mqttVersion;
    @Option(names = "--session-expiry", defaultValue = "0s", paramLabel = "DURATION",
            description = "MQTT 5 only: CONNECT session expiry interval; 0s ends the session with the connection "
                    + "(default ${DEFAULT-VALUE})")
    Duration sessionExpiry;
    @Option(names = "--receive-maximum", defaultValue = "65535", paramLabel = "N",
            description = "MQTT 5 only: CONNECT receive maximum, QoS 1 downlink in flight per device "
                    + "(default ${DEFAULT-VALUE})")
    int receiveMaximum;
    @Option(names = "--devices", required = true, paramLabel = "N", description = "number of devices (required)")
    int devices;
    @Option(names = "--per-worker", defaultValue = "18000", paramLabel = "N",
            description = "most devices per worker process (default ${DEFAULT-VALUE}; open files are limited to 20000)")
    int perWorker;
    @Option(names = "--workers", paramLabel = "N",
            description = "worker processes; 0 runs devices in this JVM (default: devices / per-worker, rounded up)")
    Integer workers;
    @Option(names = "--client-prefix", defaultValue = "dev-",
            description = "client id and certificate CN prefix (default ${DEFAULT-VALUE})")
    String clientPrefix;
    @Option(names = "--ramp-rate", defaultValue = "500", paramLabel = "PER_SECOND",
            description = "new connections per second, over all workers (default ${DEFAULT-VALUE})")
    int rampRate;
    @Option(names = "--max-handshakes", defaultValue = "200", paramLabel = "N",
            description = "most connections between TCP connect and CONNACK, over all workers "
                    + "(default ${DEFAULT-VALUE})")
    int maxHandshakes;
    @Option(names = "--source", defaultValue = "none", paramLabel = "ADDRESSES",
            description = "local source addresses, e.g. 127.0.0.2-127.0.0.250, or none (default ${DEFAULT-VALUE})")
    SourceAddresses source;
    @Option(names = "--connect-timeout", defaultValue = "15s", paramLabel = "DURATION",
            description = "TCP connect + TLS + CONNACK deadline (default ${DEFAULT-VALUE})")
    Duration connectTimeout;
    @Option(names = "--pki-dir", defaultValue = "bench-pki", paramLabel = "DIR",
            description = "bench PKI directory, created if missing (default ${DEFAULT-VALUE})")
    Path pkiDir;
    @Option(names = "--algorithm", defaultValue = "ec", completionCandidates = Converters.Algorithms.class,
            description = "ec (P-256) or rsa (2048) for a new PKI (default ${DEFAULT-VALUE})")
    KeyAlgorithm algorithm;
    @Option(names = "--certs", defaultValue = "per-device", completionCandidates = Converters.CertModes.class,
            description = "${COMPLETION-CANDIDATES} (default ${DEFAULT-VALUE})")
    CertMode certs;
    @Option(names = "--cert-pool", defaultValue = "100", paramLabel = "N",
            description = "certificates in pool mode (default ${DEFAULT-VALUE})")
    int certPool;
    @Option(names = "--server-ca", paramLabel = "FILE",
            description = "CA file that the gateway's server certificate chains to (default: the PKI's ca.pem)")
    Path serverCa;
    @Option(names = "--resume", arity = "1", defaultValue = "true", completionCandidates = Converters.Booleans.class,
            description = "offer TLS session resumption on reconnect (default ${DEFAULT-VALUE})")
    boolean resume;
    // what devices offer: mbedTLS, wolfSSL and most device SDKs offer x25519 and P-256, not the post-quantum hybrid
    // that Netty's BoringSSL client puts first by default (Mosquitto's OpenSSL 3.0 cannot negotiate it either)
    @Option(names = "--tls-groups", defaultValue = "x25519,secp256r1", paramLabel = "GROUPS",
            description = "key-exchange groups the devices offer, in their order of preference, e.g. "
                    + "X25519MLKEM768,x25519 (default ${DEFAULT-VALUE})")
    String tlsGroups;
    @Option(names = "--io-threads", defaultValue = "1", paramLabel = "N",
            description = "client event loops per process (default ${DEFAULT-VALUE})")
    int ioThreads;
    @Option(names = "--profile", completionCandidates = Converters.Profiles.class,
            description = "idle or field traffic while connected (default idle; soak: field)")
    String profile;
    @Option(names = "--time-scale", defaultValue = "1", paramLabel = "FACTOR",
            description = "divides every traffic interval (default ${DEFAULT-VALUE})")
    double timeScale;
    @Option(names = "--heartbeat-interval", defaultValue = "15s", paramLabel = "DURATION",
            description = "field profile heartbeat interval (default ${DEFAULT-VALUE})")
    Duration heartbeatInterval;
    @Option(names = "--heartbeat-bytes", defaultValue = "20", paramLabel = "N",
            description = "heartbeat payload size (default ${DEFAULT-VALUE})")
    int heartbeatBytes;
    @Option(names = "--heartbeat-qos", defaultValue = "0", paramLabel = "0|1",
            description = "heartbeat QoS (default ${DEFAULT-VALUE})")
    int heartbeatQos;
    @Option(names = "--sequence-file", paramLabel = "PATH",
            description = "number every QoS 1 payload per device (10 ASCII digits first) and write, per worker, to "
                    + "PATH.<first device index> one line per device: client id, messages numbered, numbers still "
                    + "unacknowledged (comma-separated); for checking a sink afterwards (default: off)")
    Path sequenceFile;
    @Option(names = "--status-interval", defaultValue = "60s", paramLabel = "DURATION",
            description = "status interval (default ${DEFAULT-VALUE})")
    Duration statusInterval;
    @Option(names = "--status-bytes", defaultValue = "500", paramLabel = "N",
            description = "status payload size (default ${DEFAULT-VALUE})")
    int statusBytes;
    @Option(names = "--status-qos", defaultValue = "1", paramLabel = "0|1",
            description = "status QoS (default ${DEFAULT-VALUE})")
    int statusQos;
    @Option(names = "--keepalive", defaultValue = "120s", paramLabel = "DURATION",
            description = "MQTT keepalive and PINGREQ interval (default ${DEFAULT-VALUE})")
    Duration keepalive;
    @Option(names = "--hold", paramLabel = "DURATION",
            description = "how long connect/soak hold the devices after the ramp (default 10s; soak 1h)")
    Duration hold;
    @Option(names = "--duration", defaultValue = "30s", paramLabel = "DURATION",
            description = "publish: how long to publish (default ${DEFAULT-VALUE})")
    Duration duration;
    @Option(names = "--rate", defaultValue = "1000", paramLabel = "PER_SECOND",
            description = "publish: messages per second over all devices (default ${DEFAULT-VALUE})")
    int rate;
    @Option(names = "--qos", defaultValue = "1", paramLabel = "0|1",
            description = "publish: QoS (default ${DEFAULT-VALUE})")
    int qos;
    @Option(names = "--payload", defaultValue = "64", paramLabel = "BYTES",
            description = "publish: payload bytes (default ${DEFAULT-VALUE})")
    int payload;
    @Option(names = "--drop", defaultValue = "0.5", paramLabel = "FRACTION",
            description = "storm: fraction of connected devices dropped at once (default ${DEFAULT-VALUE})")
    double drop;
    @Option(names = "--backoff-base", defaultValue = "1s", paramLabel = "DURATION",
            description = "storm/reconnect: first backoff ceiling (default ${DEFAULT-VALUE})")
    Duration backoffBase;
    @Option(names = "--backoff-max", defaultValue = "30s", paramLabel = "DURATION",
            description = "storm/reconnect: largest backoff ceiling (default ${DEFAULT-VALUE})")
    Duration backoffMax;
    @Option(names = "--reconnect-after", defaultValue = "0s", paramLabel = "DURATION",
            description = "storm: dropped devices wait this long before their first attempt, so the server has closed "
                    + "them before anyone returns and its CPU per reconnect is read without the closes; recovery is "
                    + "timed from the end of the wait; 0 or at least 1s, 5s or more leaves time for the closes "
                    + "(default ${DEFAULT-VALUE})")
    Duration reconnectAfter;
    @Option(names = "--recover-timeout", defaultValue = "300s", paramLabel = "DURATION",
            description = "storm: give up waiting for recovery after this (default ${DEFAULT-VALUE})")
    Duration recoverTimeout;
    @Option(names = "--ramp-timeout", defaultValue = "600s", paramLabel = "DURATION",
            description = "give up the ramp after this (default ${DEFAULT-VALUE})")
    Duration rampTimeout;
    @Option(names = "--settle", defaultValue = "5s", paramLabel = "DURATION",
            description = "pause before reading gateway memory after a ramp (default ${DEFAULT-VALUE})")
    Duration settle;
    @Option(names = "--out", paramLabel = "DIR",
            description = "report directory (default bench-results/<scenario>-<time>)")
    Path out;
    // C1 only: a worker lives for one run and repeats a few short paths, and in a storm C2's compilations of the
    // resumption path were half of its CPU (docs/benchmarks/history.md): CPU taken from the server on a shared machine
    @Option(names = "--worker-jvm", defaultValue = "-Xmx1g -XX:+UseG1GC -XX:TieredStopAtLevel=1", paramLabel = "FLAGS",
            description = "JVM options of worker processes, space separated (default ${DEFAULT-VALUE})")
    String workerJvm;
    @Option(names = "--worker-index", hidden = true, defaultValue = "0", description = "internal: this worker's index")
    int workerIndex;
    @Option(names = "--worker-count", hidden = true, defaultValue = "0", description = "internal: number of workers")
    int workerCount;

    public ScenarioCommand(Scenario scenario) {
        this.scenario = scenario;
    }

    public Scenario scenario() {
        return scenario;
    }

    @Override
    public Integer call() throws Exception {
        return ScenarioRun.run(toOptions(), spec.commandLine().getOut(), spec.commandLine().getErr());
    }

    /** The parsed options, range-checked; a value out of range is a {@link BadArgumentException} naming it. */
    public BenchOptions toOptions() {
        within("devices", devices, 1, 10_000_000);
        within("port", port, 1, 65_535);
        within("per-worker", perWorker, 1, 1_000_000);
        int workerProcesses = workers == null ? (devices + perWorker - 1) / perWorker : workers;
        within("workers", workerProcesses, 0, 1_000);
        if (workerProcesses > 0 && (long) workerProcesses * perWorker < devices) {
            throw new BadArgumentException("--workers " + workerProcesses + " x --per-worker " + perWorker
                    + " < --devices " + devices + "; raise --workers or --per-worker");
        }
        within("ramp-rate", rampRate, 1, 1_000_000);
        within("max-handshakes", maxHandshakes, 1, 1_000_000);
        within("connect-timeout", connectTimeout, Duration.ofMillis(100), Duration.ofMinutes(5));
        within("cert-pool", certPool, 1, 1_000_000);
        within("io-threads", ioThreads, 1, 64);
        within("session-expiry", sessionExpiry, Duration.ZERO, Duration.ofSeconds(0xFFFF_FFFFL));
        within("receive-maximum", receiveMaximum, 1, 65_535);
        boolean v5Properties = sessionExpiry.compareTo(Duration.ZERO) != 0 || receiveMaximum != 65_535;
        if (mqttVersion != MqttVersion.V5 && v5Properties) {
            throw new BadArgumentException("--session-expiry and --receive-maximum are MQTT 5 properties; add "
                    + "--mqtt-version 5 or leave them out");
        }
        FleetOptions fleet = new FleetOptions(devices, perWorker, workerProcesses, clientPrefix, rampRate,
                maxHandshakes, source, connectTimeout, pkiDir, algorithm, certs, certPool,
                serverCa == null ? pkiDir.resolve("ca.pem") : serverCa, resume, groups(tlsGroups), ioThreads,
                new ProtocolOptions(mqttVersion, sessionExpiry, receiveMaximum, cleanSession));

        String chosenProfile = profile == null ? (scenario == Scenario.SOAK ? "field" : "idle") : profile;
        if (!chosenProfile.equals("field") && !chosenProfile.equals("idle")) {
            throw new BadArgumentException("--profile = '" + profile + "'; write idle or field");
        }
        within("time-scale", timeScale, 0.001, 10_000);
        within("heartbeat-interval", heartbeatInterval, MIN_INTERVAL, DAY);
        within("heartbeat-bytes", heartbeatBytes, 0, MAX_BYTES);
        within("heartbeat-qos", heartbeatQos, 0, 1);
        within("status-interval", statusInterval, MIN_INTERVAL, DAY);
        within("status-bytes", statusBytes, 0, MAX_BYTES);
        within("status-qos", statusQos, 0, 1);
        within("keepalive", keepalive, Duration.ofSeconds(1), Duration.ofSeconds(65_535));
        TrafficProfile traffic = new TrafficProfile(chosenProfile.equals("field"), timeScale, heartbeatInterval,
                heartbeatBytes, heartbeatQos, statusInterval, statusBytes, statusQos, keepalive, sequenceFile);

        Duration holdFor = hold != null ? hold
                : scenario == Scenario.SOAK ? Duration.ofHours(1) : Duration.ofSeconds(10);
        within("hold", holdFor, Duration.ZERO, Duration.ofDays(7));
        within("duration", duration, Duration.ofSeconds(1), DAY);
        within("rate", rate, 1, 10_000_000);
        within("qos", qos, 0, 1);
        within("payload", payload, 0, MAX_BYTES);
        within("drop", drop, 0.0, 1.0);
        within("backoff-base", backoffBase, Duration.ofMillis(1), DAY);
        within("backoff-max", backoffMax, Duration.ofMillis(1), DAY);
        if (backoffMax.compareTo(backoffBase) < 0) {
            throw new BadArgumentException("--backoff-max " + backoffMax.toMillis() + "ms is below --backoff-base "
                    + backoffBase.toMillis() + "ms; raise --backoff-max or lower --backoff-base");
        }
        if (!reconnectAfter.isZero()) {
            within("reconnect-after", reconnectAfter, Duration.ofSeconds(1), Duration.ofMinutes(10));
        }
        within("recover-timeout", recoverTimeout, Duration.ofSeconds(1), DAY);
        within("ramp-timeout", rampTimeout, Duration.ofSeconds(1), DAY);
        within("settle", settle, Duration.ZERO, Duration.ofMinutes(10));
        String stamp = LocalDateTime.now(java.time.ZoneId.systemDefault())
                .format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT));
        Path outDir = out != null ? out : Path.of("bench-results/" + scenario.name().toLowerCase(Locale.ROOT) + "-"
                + stamp);
        ScenarioOptions run = new ScenarioOptions(holdFor, duration, rate, qos, payload, drop,
                new BackoffPolicy(backoffBase, backoffMax), reconnectAfter, recoverTimeout, rampTimeout, settle, outDir,
                workerJvm.isBlank() ? List.of() : Arrays.asList(workerJvm.trim().split("\\s+")), nodeAction());

        within("worker-count", workerCount, 0, 1_000);
        within("worker-index", workerIndex, 0, 999);
        if (workerCount > 0 && workerIndex >= workerCount) {
            throw new BadArgumentException("--worker-index " + workerIndex + " must be below --worker-count "
                    + workerCount);
        }
        return new BenchOptions(scenario, target(), fleet, traffic, run, workerIndex, workerCount, given());
    }

    private NodeAction nodeAction() {
        List<Long> pids = new java.util.ArrayList<>();
        if (nodePids != null) {
            for (String p : nodePids.split(",")) {
                try {
                    pids.add(Long.parseLong(p.trim()));
                } catch (NumberFormatException e) {
                    throw new BadArgumentException("--node-pids = '" + nodePids + "'; write PID,PID,...");
                }
            }
        }
        NodeAction.Kind kind;
        try {
            kind = NodeAction.Kind.valueOf(action.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new BadArgumentException("--action = '" + action + "'; allowed: hold, kill or rolling");
        }
        if (kind != NodeAction.Kind.HOLD && scenario != Scenario.FLEET) {
            throw new BadArgumentException("--action " + action + " is for bench fleet");
        }
        int count = nodes == null ? 1 : GatewayNode.parseList("nodes", nodes).size();
        int victim = killNode == null ? count - 1 : killNode;
        if (kind == NodeAction.Kind.KILL) {
            within("kill-node", victim, 0, count - 1);
            if (pids.size() != count) {
                throw new BadArgumentException("--action kill needs --node-pids with one pid per node of --nodes ("
                        + count + ")");
            }
        }
        if (kind == NodeAction.Kind.ROLLING && (restartCommand == null || restartCommand.isBlank())) {
            throw new BadArgumentException("--action rolling needs --restart-command");
        }
        return new NodeAction(kind, victim, pids, restartCommand);
    }

    private GatewayTarget target() {
        URI metrics = null;
        if (!admin.equals("none")) {
            int colon = admin.lastIndexOf(':');
            int adminPort = -1;
            if (colon > 0) {
                try {
                    adminPort = Integer.parseInt(admin.substring(colon + 1));
                } catch (NumberFormatException e) {
                    adminPort = -1;
                }
            }
            if (adminPort < 1 || adminPort > 65_535) {
                throw new BadArgumentException("--admin = '" + admin
                        + "'; write host:port (e.g. 127.0.0.1:9090) or none");
            }
            metrics = URI.create("http://" + admin + "/metrics");
        }
        long pid = -1;
        if (gatewayPid != null) {
            within("gateway-pid", gatewayPid, 1, Long.MAX_VALUE);
            pid = gatewayPid;
        }
        if (nodes == null) {
            return new GatewayTarget(host, port, metrics, pid);
        }
        List<GatewayNode> list = GatewayNode.parseList("nodes", nodes);
        within("health-interval", healthInterval, Duration.ofMillis(100), Duration.ofMinutes(1));
        return new GatewayTarget(list.get(0).host(), list.get(0).port(), metrics, pid, list,
                BalancePolicy.ofLabel(balance), healthInterval);
    }

    /**
     * The options as typed (name without dashes to the value), so the coordinator hands worker processes exactly what
     * it was given; the internal worker options are left out.
     */
    private Map<String, String> given() {
        Map<String, String> m = new LinkedHashMap<>();
        if (spec == null || spec.commandLine().getParseResult() == null) {
            return m;
        }
        for (OptionSpec o : spec.commandLine().getParseResult().matchedOptions()) {
            String name = o.longestName().substring(2);
            List<String> values = o.originalStringValues();
            if (!o.hidden() && !values.isEmpty()) {
                m.put(name, values.get(values.size() - 1));
            }
        }
        return m;
    }

    /** {@code --tls-groups}: a non-empty list of the groups the gateway's {@code listener.tls.groups} knows. */
    private static List<String> groups(String value) {
        try {
            return ValueParsers.subsetOf(CoreConfigKeys.TLS_GROUP_NAMES.toArray(String[]::new)).apply(value);
        } catch (IllegalArgumentException e) {
            throw new BadArgumentException("--tls-groups = '" + value + "'; allowed: a comma-separated list of "
                    + String.join(", ", CoreConfigKeys.TLS_GROUP_NAMES));
        }
    }

    private static void within(String option, long value, long min, long max) {
        if (value < min || value > max) {
            throw new BadArgumentException("--" + option + " = " + value + " is out of range; allowed: " + min + " to "
                    + max);
        }
    }

    private static void within(String option, double value, double min, double max) {
        if (!(value >= min && value <= max)) {
            throw new BadArgumentException("--" + option + " = " + value + " is out of range; allowed: " + min + " to "
                    + max);
        }
    }

    private static void within(String option, Duration value, Duration min, Duration max) {
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new BadArgumentException("--" + option + " = " + value.toMillis() + "ms is out of range; allowed: "
                    + min.toMillis() + "ms to " + max.toSeconds() + "s");
        }
    }
}
