package io.mqttgw.bench.sim.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Turns the command line of a scenario subcommand into {@link BenchOptions}; also renders the usage text. */
public final class OptionsParser {
    /** Name to one-line help, in the order the usage shows them. */
    private static final Map<String, String> OPTIONS = new LinkedHashMap<>();

    static {
        OPTIONS.put("host", "gateway host (default 127.0.0.1)");
        OPTIONS.put("port", "gateway MQTT/TLS port (default 8883)");
        OPTIONS.put("admin", "gateway admin host:port for /metrics, or none (default 127.0.0.1:9090)");
        OPTIONS.put("gateway-pid", "server process id: CPU and RSS from /proc; jcmd GC.run before memory is read only if it is a JVM");
        OPTIONS.put("devices", "number of devices (required)");
        OPTIONS.put("per-worker", "most devices per worker process (default 18000; open files are limited to 20000)");
        OPTIONS.put("workers", "worker processes; 0 runs devices in this JVM (default: devices / per-worker, rounded up)");
        OPTIONS.put("client-prefix", "client id and certificate CN prefix (default dev-)");
        OPTIONS.put("ramp-rate", "new connections per second, over all workers (default 500)");
        OPTIONS.put("max-handshakes", "most connections between TCP connect and CONNACK, over all workers (default 200)");
        OPTIONS.put("source", "local source addresses, e.g. 127.0.0.2-127.0.0.250, or none (default none)");
        OPTIONS.put("connect-timeout", "TCP connect + TLS + CONNACK deadline (default 15s)");
        OPTIONS.put("pki-dir", "bench PKI directory, created if missing (default bench-pki)");
        OPTIONS.put("algorithm", "ec (P-256) or rsa (2048) for a new PKI (default ec)");
        OPTIONS.put("certs", "per-device, shared or pool (default per-device)");
        OPTIONS.put("cert-pool", "certificates in pool mode (default 100)");
        OPTIONS.put("server-ca", "CA file that the gateway's server certificate chains to (default PKI's ca.pem)");
        OPTIONS.put("resume", "offer TLS session resumption on reconnect (default true)");
        OPTIONS.put("io-threads", "client event loops per process (default 1)");
        OPTIONS.put("profile", "idle or field traffic while connected (default idle; soak: field)");
        OPTIONS.put("time-scale", "divides every traffic interval (default 1)");
        OPTIONS.put("heartbeat-interval", "field profile heartbeat interval (default 15s)");
        OPTIONS.put("heartbeat-bytes", "heartbeat payload size (default 20)");
        OPTIONS.put("heartbeat-qos", "heartbeat QoS 0 or 1 (default 0)");
        OPTIONS.put("status-interval", "status interval (default 60s)");
        OPTIONS.put("status-bytes", "status payload size (default 500)");
        OPTIONS.put("status-qos", "status QoS 0 or 1 (default 1)");
        OPTIONS.put("keepalive", "MQTT keepalive and PINGREQ interval (default 120s)");
        OPTIONS.put("hold", "how long connect/soak hold the devices after the ramp (default 10s; soak 1h)");
        OPTIONS.put("duration", "publish: how long to publish (default 30s)");
        OPTIONS.put("rate", "publish: messages per second over all devices (default 1000)");
        OPTIONS.put("qos", "publish: QoS 0 or 1 (default 1)");
        OPTIONS.put("payload", "publish: payload bytes (default 64)");
        OPTIONS.put("drop", "storm: fraction of connected devices dropped at once (default 0.5)");
        OPTIONS.put("backoff-base", "storm/reconnect: first backoff ceiling (default 1s)");
        OPTIONS.put("backoff-max", "storm/reconnect: largest backoff ceiling (default 30s)");
        OPTIONS.put("recover-timeout", "storm: give up waiting for recovery after this (default 300s)");
        OPTIONS.put("ramp-timeout", "give up the ramp after this (default 600s)");
        OPTIONS.put("settle", "pause before reading gateway memory after a ramp (default 5s)");
        OPTIONS.put("out", "report directory (default bench-results/<scenario>-<time>)");
        OPTIONS.put("worker-jvm", "JVM options of worker processes, space separated (default -Xmx1g -XX:+UseG1GC)");
        OPTIONS.put("worker-index", "internal: this worker's index");
        OPTIONS.put("worker-count", "internal: number of workers");
    }

    private OptionsParser() {
    }

    public static String usage() {
        StringBuilder sb = new StringBuilder();
        sb.append("usage: bench <connect|publish|storm|soak> --devices N [options]\n");
        sb.append("       bench pki [--pki-dir DIR] [--algorithm ec|rsa]   (writes CA and server certificate)\n\n");
        OPTIONS.forEach((name, help) -> {
            if (!name.startsWith("worker-index") && !name.startsWith("worker-count")) {
                sb.append(String.format("  --%-20s %s%n", name, help));
            }
        });
        return sb.toString();
    }

    public static BenchOptions parse(Scenario scenario, List<String> args) {
        RawArgs a = RawArgs.parse(args, OPTIONS.keySet());
        int devices = a.integer("devices", -1, 1, 10_000_000);
        if (devices < 0) {
            throw new BadArgumentException("option --devices is required (how many devices to simulate)");
        }
        GatewayTarget target = target(a);
        int perWorker = a.integer("per-worker", 18_000, 1, 1_000_000);
        int workers = a.integer("workers", (devices + perWorker - 1) / perWorker, 0, 1_000);
        if (workers > 0 && (long) workers * perWorker < devices) {
            throw new BadArgumentException("--workers " + workers + " x --per-worker " + perWorker + " < --devices "
                    + devices + "; raise --workers or --per-worker");
        }
        Path pkiDir = Path.of(a.string("pki-dir", "bench-pki"));
        String serverCa = a.string("server-ca", null);
        FleetOptions fleet = new FleetOptions(devices, perWorker, workers, a.string("client-prefix", "dev-"),
                a.integer("ramp-rate", 500, 1, 1_000_000), a.integer("max-handshakes", 200, 1, 1_000_000),
                SourceAddresses.parse("source", a.string("source", "none")),
                a.duration("connect-timeout", Duration.ofSeconds(15), Duration.ofMillis(100), Duration.ofMinutes(5)),
                pkiDir, a.choice("algorithm", KeyAlgorithm.EC, KeyAlgorithm.class),
                a.choice("certs", CertMode.PER_DEVICE, CertMode.class), a.integer("cert-pool", 100, 1, 1_000_000),
                serverCa == null ? pkiDir.resolve("ca.pem") : Path.of(serverCa), a.bool("resume", true),
                a.integer("io-threads", 1, 1, 64));
        boolean field = a.string("profile", scenario == Scenario.SOAK ? "field" : "idle").equals("field");
        if (a.has("profile") && !field && !a.string("profile", "").equals("idle")) {
            throw new BadArgumentException("--profile = '" + a.string("profile", "") + "'; allowed: idle, field");
        }
        Duration minInterval = Duration.ofMillis(10);
        Duration day = Duration.ofHours(24);
        TrafficProfile profile = new TrafficProfile(field, a.decimal("time-scale", 1, 0.001, 10_000),
                a.duration("heartbeat-interval", Duration.ofSeconds(15), minInterval, day),
                a.integer("heartbeat-bytes", 20, 0, 256 * 1024), a.integer("heartbeat-qos", 0, 0, 1),
                a.duration("status-interval", Duration.ofSeconds(60), minInterval, day),
                a.integer("status-bytes", 500, 0, 256 * 1024), a.integer("status-qos", 1, 0, 1),
                a.duration("keepalive", Duration.ofSeconds(120), Duration.ofSeconds(1), Duration.ofSeconds(65_535)));
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        String jvm = a.string("worker-jvm", "-Xmx1g -XX:+UseG1GC");
        ScenarioOptions run = new ScenarioOptions(
                a.duration("hold", scenario == Scenario.SOAK ? Duration.ofHours(1) : Duration.ofSeconds(10),
                        Duration.ZERO, Duration.ofDays(7)),
                a.duration("duration", Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofDays(1)),
                a.integer("rate", 1000, 1, 10_000_000), a.integer("qos", 1, 0, 1),
                a.integer("payload", 64, 0, 256 * 1024), a.decimal("drop", 0.5, 0.0, 1.0),
                new BackoffPolicy(a.duration("backoff-base", Duration.ofSeconds(1), Duration.ofMillis(1), day),
                        a.duration("backoff-max", Duration.ofSeconds(30), Duration.ofMillis(1), day)),
                a.duration("recover-timeout", Duration.ofSeconds(300), Duration.ofSeconds(1), day),
                a.duration("ramp-timeout", Duration.ofSeconds(600), Duration.ofSeconds(1), day),
                a.duration("settle", Duration.ofSeconds(5), Duration.ZERO, Duration.ofMinutes(10)),
                Path.of(a.string("out", "bench-results/" + scenario.name().toLowerCase() + "-" + stamp)),
                jvm.isBlank() ? List.of() : Arrays.asList(jvm.trim().split("\\s+")));
        if (run.backoff().max().compareTo(run.backoff().base()) < 0) {
            throw new BadArgumentException("--backoff-max must not be below --backoff-base");
        }
        int workerCount = a.integer("worker-count", 0, 0, 1_000);
        int workerIndex = a.integer("worker-index", 0, 0, 999);
        if (workerCount > 0 && workerIndex >= workerCount) {
            throw new BadArgumentException("--worker-index must be below --worker-count");
        }
        return new BenchOptions(scenario, target, fleet, profile, run, workerIndex, workerCount, a.given());
    }

    private static GatewayTarget target(RawArgs a) {
        String host = a.string("host", "127.0.0.1");
        int port = a.integer("port", 8883, 1, 65_535);
        String admin = a.string("admin", "127.0.0.1:9090");
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
                throw new BadArgumentException("--admin = '" + admin + "'; write host:port (e.g. 127.0.0.1:9090) or none");
            }
            metrics = URI.create("http://" + admin + "/metrics");
        }
        long pid = a.number("gateway-pid", -1, 1, Long.MAX_VALUE);
        return new GatewayTarget(host, port, metrics, pid);
    }
}
