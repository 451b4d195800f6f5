package io.mqttgw.deploy.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.config.ConfigKey;
import io.mqttgw.core.config.ConfigLoader;
import io.mqttgw.core.config.ConfigValues;
import io.mqttgw.core.config.CoreConfigKeys;
import io.mqttgw.core.spi.Providers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * deploy/kubernetes: every YAML document parses, and the rendered manifests (the base as written, and each overlay
 * rendered by {@code kubectl kustomize} where kubectl is installed) hold what running a fleet needs: a LoadBalancer
 * Service with externalTrafficPolicy Local, readiness on /health/ready and liveness on /health/live, a
 * PodDisruptionBudget and anti-affinity selecting the pods, a termination grace that covers preStop and the drain of
 * the pod's connections at shutdown.drain-rate, memory for the density JVM profile the launcher computes, TLS from a
 * Secret and the configuration from a ConfigMap mounted so that updates reach the pod, a ServiceMonitor that finds the
 * admin port, and a gateway
 * configuration (file and MQTTGW_* environment) that the gateway's own loader accepts. An IT: it runs the built
 * distribution's launcher ({@code bin/gateway jvm-options}) for the heap and direct-memory sizes.
 */
class KubernetesManifestsIT {
    private static final Path DIR = Path.of("kubernetes");
    /** Native memory of BoringSSL per idle mutual-TLS connection, rounded up (BENCHMARKS.md: 4.7-5.9 KB). */
    private static final long NATIVE_PER_CONNECTION = 6 * 1024;
    /** Metaspace, code cache, thread stacks, GC structures and the launcher's margin. */
    private static final long JVM_OVERHEAD = 512L << 20;

    @TempDir
    Path dir;

    @Test
    void everyYamlDocumentParses() throws Exception {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(DIR)) {
            files = walk.filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml")).toList();
        }
        assertTrue(files.size() >= 9, files.toString());
        for (Path f : files) {
            int documents = 0;
            for (Object doc : new Yaml().loadAll(Files.readString(f))) {
                assertTrue(doc instanceof Map, f + ": a document that is not a mapping");
                documents++;
            }
            assertTrue(documents > 0, f + " is empty");
        }
    }

    @Test
    void theBaseRunsAFleetBehindALoadBalancer() throws Exception {
        Map<String, Object> kustomization = yaml(DIR.resolve("base/kustomization.yaml"));
        List<Map<String, Object>> docs = new ArrayList<>();
        for (Object resource : list(kustomization, "resources")) {
            docs.addAll(yamlAll(DIR.resolve("base").resolve((String) resource)));
        }
        Map<String, String> env = new HashMap<>();
        for (Object generator : list(kustomization, "configMapGenerator")) {
            if (!map(generator).containsKey("literals")) {
                continue;
            }
            for (Object literal : list(map(generator), "literals")) {
                String[] kv = ((String) literal).split("=", 2);
                env.put(kv[0], kv[1]);
            }
        }
        check(docs, Files.readString(DIR.resolve("base/gateway.yaml")), env);
    }

    @Test
    void everyOverlayRendersToTheSameGuarantees() throws Exception {
        Path kubectl = Path.of("/usr/bin/kubectl");
        Assumptions.assumeTrue(Files.isExecutable(kubectl), "kubectl is not installed: overlays not rendered");
        List<Path> overlays;
        try (Stream<Path> list = Files.list(DIR.resolve("overlays"))) {
            overlays = list.filter(Files::isDirectory).sorted().toList();
        }
        assertTrue(overlays.size() >= 2, overlays.toString());
        for (Path overlay : overlays) {
            List<Map<String, Object>> docs = new ArrayList<>();
            for (Object doc : new Yaml().loadAll(run(kubectl.toString(), "kustomize", overlay.toString()))) {
                docs.add(map(doc));
            }
            Map<String, Object> envMap = map(find(docs, "ConfigMap", "mqtt-gateway-env").get("data"));
            Map<String, String> env = envMap.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
                    e -> String.valueOf(e.getValue())));
            String gatewayYaml = (String) map(find(docs, "ConfigMap", "mqtt-gateway-config").get("data"))
                    .get("gateway.yaml");
            check(docs, gatewayYaml, env);
            Map<String, Object> service = find(docs, "Service", "mqtt-gateway");
            assertNotNull(map(service.get("metadata")).get("annotations"), overlay + ": no balancer annotations");
        }
    }

    private void check(List<Map<String, Object>> docs, String gatewayYaml, Map<String, String> env) throws Exception {
        Map<String, Object> deployment = find(docs, "Deployment", "mqtt-gateway");
        Map<String, Object> podTemplate = map(map(deployment.get("spec")).get("template"));
        Map<String, Object> podLabels = map(map(podTemplate.get("metadata")).get("labels"));
        Map<String, Object> pod = map(podTemplate.get("spec"));
        Map<String, Object> container = map(list(pod, "containers").get(0));

        // the devices' Service
        Map<String, Object> service = map(find(docs, "Service", "mqtt-gateway").get("spec"));
        assertEquals("LoadBalancer", service.get("type"));
        assertEquals("Local", service.get("externalTrafficPolicy"), "keeps the device address, skips pod-less nodes");
        assertSelects(map(service.get("selector")), podLabels, "Service");

        // probes: readiness is the overload signal, liveness never is
        ConfigValues config = load(gatewayYaml, env);
        int adminPort = config.get(CoreConfigKeys.ADMIN_PORT);
        assertEquals("/health/ready", map(map(container.get("readinessProbe")).get("httpGet")).get("path"));
        assertEquals("/health/live", map(map(container.get("livenessProbe")).get("httpGet")).get("path"));
        Map<String, Object> adminContainerPort = list(container, "ports").stream().map(KubernetesManifestsIT::map)
                .filter(p -> "admin".equals(p.get("name"))).findFirst().orElseThrow();
        assertEquals(adminPort, adminContainerPort.get("containerPort"), "the probes' port is admin.port");
        assertEquals("0.0.0.0", config.get(CoreConfigKeys.ADMIN_BIND), "the kubelet probes the pod's address");

        // PodDisruptionBudget and anti-affinity select these pods
        Map<String, Object> pdb = map(find(docs, "PodDisruptionBudget", "mqtt-gateway").get("spec"));
        assertEquals(1, pdb.get("maxUnavailable"));
        assertSelects(map(map(pdb.get("selector")).get("matchLabels")), podLabels, "PodDisruptionBudget");
        Map<String, Object> antiAffinity = map(map(pod.get("affinity")).get("podAntiAffinity"));
        Map<String, Object> term = map(list(antiAffinity, "requiredDuringSchedulingIgnoredDuringExecution").get(0));
        assertEquals("kubernetes.io/hostname", term.get("topologyKey"));
        assertSelects(map(map(term.get("labelSelector")).get("matchLabels")), podLabels, "anti-affinity");

        // the grace covers preStop and draining the pod's connections at shutdown.drain-rate
        long connections = Long.parseLong(envValue(container, "GATEWAY_EXPECTED_CONNECTIONS"));
        int closeRate = config.get(CoreConfigKeys.SHUTDOWN_DRAIN_RATE);
        Duration shutdownTimeout = config.get(CoreConfigKeys.SHUTDOWN_TIMEOUT);
        long drainSeconds = (connections + closeRate - 1) / closeRate;
        assertTrue(shutdownTimeout.toSeconds() >= drainSeconds + 5, "shutdown.timeout " + shutdownTimeout
                + " cannot close " + connections + " connections at " + closeRate + "/s");
        int preStop = (Integer) map(map(map(container.get("lifecycle")).get("preStop")).get("sleep")).get("seconds");
        int grace = (Integer) pod.get("terminationGracePeriodSeconds");
        long readyGrace = config.get(CoreConfigKeys.SHUTDOWN_READY_GRACE).toSeconds();
        assertTrue(grace >= preStop + readyGrace + shutdownTimeout.toSeconds() + 10, "terminationGracePeriodSeconds "
                + grace + " < preStop " + preStop + " s + shutdown.ready-grace + shutdown.timeout + 10 s: the kubelet "
                + "would kill the drain");
        // a drain started inside a pod that is not deleted (gateway drain, POST /drain) leaves the Service only when
        // the readiness probe has seen the 503: the port must stay open that long
        Map<String, Object> readiness = map(container.get("readinessProbe"));
        int notReadyAfter = (Integer) readiness.getOrDefault("periodSeconds", 10)
                * (Integer) readiness.getOrDefault("failureThreshold", 3);
        assertTrue(readyGrace >= notReadyAfter, "shutdown.ready-grace " + readyGrace + " s < readiness periodSeconds x "
                + "failureThreshold " + notReadyAfter + " s: a drained pod's port would close while the Service still "
                + "sends it devices");

        // memory for the density profile at that connection count, as the launcher computes it
        assertEquals("density", envValue(container, "GATEWAY_JVM_PROFILE"));
        Map<String, Object> resources = map(container.get("resources"));
        assertEquals(resources.get("requests"), resources.get("limits"), "Guaranteed QoS: requests equal limits");
        long limit = bytes((String) map(resources.get("limits")).get("memory"));
        long[] sizes = launcherSizes(connections);
        long needed = sizes[0] + sizes[1] + connections * NATIVE_PER_CONNECTION + JVM_OVERHEAD;
        assertTrue(limit >= needed, "memory limit " + limit + " < heap " + sizes[0] + " + direct " + sizes[1]
                + " + native + overhead = " + needed);
        assertTrue(limit <= needed * 2, "memory limit " + limit + " far above what the profile uses: " + needed);

        // TLS material from a Secret, mounted as a directory (a subPath mount never sees updates)
        Map<String, Object> tlsVolume = list(pod, "volumes").stream().map(KubernetesManifestsIT::map)
                .filter(v -> v.containsKey("secret")).findFirst().orElseThrow();
        Map<String, Object> tlsMount = list(container, "volumeMounts").stream().map(KubernetesManifestsIT::map)
                .filter(m -> tlsVolume.get("name").equals(m.get("name"))).findFirst().orElseThrow();
        assertFalse(tlsMount.containsKey("subPath"), "subPath mounts are not updated: no reload");
        for (ConfigKey<String> file : List.of(CoreConfigKeys.TLS_CERT_FILE, CoreConfigKeys.TLS_KEY_FILE,
                CoreConfigKeys.TLS_CA_FILE)) {
            assertTrue(config.get(file).startsWith(tlsMount.get("mountPath") + "/"), file.name() + " outside the "
                    + "Secret's mount");
        }

        // the config file from a ConfigMap mounted as a directory and watched: an edit reaches the pods, no restart
        Map<String, Object> configVolume = list(pod, "volumes").stream().map(KubernetesManifestsIT::map)
                .filter(v -> v.containsKey("configMap") && String.valueOf(map(v.get("configMap")).get("name"))
                        .startsWith("mqtt-gateway-config")).findFirst().orElseThrow();
        Map<String, Object> configMount = list(container, "volumeMounts").stream().map(KubernetesManifestsIT::map)
                .filter(m -> configVolume.get("name").equals(m.get("name"))).findFirst().orElseThrow();
        assertFalse(configMount.containsKey("subPath"), "subPath mounts are not updated: no reload");
        assertTrue(config.get(CoreConfigKeys.CONFIG_WATCH_INTERVAL).toSeconds() > 0, "config.watch-interval off");

        // non-root, read-only root file system, writable /tmp for Netty's native libraries
        Map<String, Object> security = map(container.get("securityContext"));
        assertEquals(true, security.get("readOnlyRootFilesystem"));
        assertEquals(true, map(pod.get("securityContext")).get("runAsNonRoot"));
        assertTrue(list(container, "volumeMounts").stream().map(KubernetesManifestsIT::map)
                .anyMatch(m -> "/tmp".equals(m.get("mountPath"))), "no writable /tmp");

        // the ServiceMonitor finds the admin Service and its port
        Map<String, Object> monitor = map(find(docs, "ServiceMonitor", "mqtt-gateway").get("spec"));
        Map<String, Object> admin = find(docs, "Service", "mqtt-gateway-admin");
        assertSelects(map(map(monitor.get("selector")).get("matchLabels")), map(map(admin.get("metadata"))
                .get("labels")), "ServiceMonitor");
        Object portName = map(list(monitor, "endpoints").get(0)).get("port");
        assertTrue(list(map(admin.get("spec")), "ports").stream().anyMatch(p -> portName.equals(map(p).get("name"))));
        assertEquals("/metrics", map(list(monitor, "endpoints").get(0)).get("path"));
        assertSelects(map(map(admin.get("spec")).get("selector")), podLabels, "admin Service");

        // Kafka and Redis from the environment, by names the gateway knows
        assertEquals("kafka", config.get(CoreConfigKeys.UPLINK_SINK));
        assertEquals("redis", config.get(CoreConfigKeys.ROUTES_PROVIDER));
        assertTrue(env.containsKey("MQTTGW_UPLINK_KAFKA_BOOTSTRAP_SERVERS") && env.containsKey(
                "MQTTGW_ROUTES_REDIS_ADDRESS"), env.toString());
    }

    /** Loads the configuration with the gateway's loader; every MQTTGW_* variable must name a declared key. */
    static ConfigValues load(String gatewayYaml, Map<String, String> env) throws Exception {
        Providers providers = Providers.discover();
        List<ConfigKey<?>> keys = ConfigLoader.withCoreKeys(providers.configKeys());
        Set<String> known = keys.stream().map(k -> "MQTTGW_" + k.name().toUpperCase(Locale.ROOT).replace('.', '_')
                .replace('-', '_')).collect(Collectors.toSet());
        for (String name : env.keySet()) {
            assertTrue(!name.startsWith("MQTTGW_") || known.contains(name), name + " names no configuration key");
        }
        Map<String, String> withPodEnv = new HashMap<>(env);
        withPodEnv.put("MQTTGW_NODE_ID", "mqtt-gateway-7c9d8-x2x4q");
        Path file = Files.createTempFile("gateway", ".yaml");
        try {
            Files.writeString(file, gatewayYaml);
            return new ConfigLoader(keys, providers.openPrefixes(), withPodEnv, new Properties()).load(file);
        } finally {
            Files.delete(file);
        }
    }

    /** Heap and direct memory in bytes from {@code bin/gateway jvm-options density} of the built distribution. */
    private static long[] launcherSizes(long connections) throws Exception {
        Path launcher = Path.of("target/mqtt-gateway/bin/gateway");
        assertTrue(Files.isExecutable(launcher), "build the distribution first (mvn package): " + launcher);
        ProcessBuilder pb = new ProcessBuilder(launcher.toString(), "jvm-options", "density").redirectErrorStream(true);
        pb.environment().put("GATEWAY_EXPECTED_CONNECTIONS", Long.toString(connections));
        pb.environment().remove("GATEWAY_HEAP");
        pb.environment().remove("GATEWAY_DIRECT");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        Matcher heap = Pattern.compile("(?m)^-Xmx(\\d+[kmg])$").matcher(out);
        Matcher direct = Pattern.compile("(?m)^-XX:MaxDirectMemorySize=(\\d+[kmg])$").matcher(out);
        assertTrue(heap.find() && direct.find(), out);
        return new long[] {bytes(heap.group(1)), bytes(direct.group(1))};
    }

    static long bytes(String quantity) {
        Matcher m = Pattern.compile("(\\d+)(Ki|Mi|Gi|k|m|g)?").matcher(quantity);
        assertTrue(m.matches(), quantity);
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "" : m.group(2).toLowerCase(Locale.ROOT);
        return switch (unit) {
            case "ki", "k" -> n << 10;
            case "mi", "m" -> n << 20;
            case "gi", "g" -> n << 30;
            default -> n;
        };
    }

    private static String envValue(Map<String, Object> container, String name) {
        return list(container, "env").stream().map(KubernetesManifestsIT::map).filter(e -> name.equals(e.get("name")))
                .map(e -> String.valueOf(e.get("value"))).findFirst().orElseThrow(() -> new AssertionError(
                        "no env " + name));
    }

    private static void assertSelects(Map<String, Object> selector, Map<String, Object> labels, String what) {
        assertFalse(selector.isEmpty(), what + " selects nothing");
        selector.forEach((k, v) -> assertEquals(v, labels.get(k), what + " selector " + k + " misses the pods"));
    }

    private static Map<String, Object> find(List<Map<String, Object>> docs, String kind, String name) {
        return docs.stream().filter(d -> kind.equals(d.get("kind")) && name.equals(map(d.get("metadata"))
                .get("name")) || kind.equals(d.get("kind")) && kind.equals("ConfigMap") && String.valueOf(
                map(d.get("metadata")).get("name")).startsWith(name + "-")).findFirst().orElseThrow(
                        () -> new AssertionError("no " + kind + " " + name));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        assertTrue(o instanceof Map, "not a mapping: " + o);
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Map<String, Object> m, String key) {
        Object o = m.get(key);
        assertTrue(o instanceof List, key + " is not a list in " + m);
        return (List<Object>) o;
    }

    private static Map<String, Object> yaml(Path f) throws Exception {
        return map(new Yaml().load(Files.readString(f)));
    }

    private static List<Map<String, Object>> yamlAll(Path f) throws Exception {
        List<Map<String, Object>> docs = new ArrayList<>();
        for (Object doc : new Yaml().loadAll(Files.readString(f))) {
            docs.add(map(doc));
        }
        return docs;
    }

    private static String run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        return out;
    }
}
