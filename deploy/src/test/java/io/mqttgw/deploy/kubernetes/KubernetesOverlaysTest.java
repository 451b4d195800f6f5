package io.mqttgw.deploy.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.config.ConfigValues;
import io.mqttgw.core.config.CoreConfigKeys;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * The manifests as kustomize renders them ({@link Kustomization}, which needs no kubectl and is compared with
 * {@code kubectl kustomize} where that is installed): a balancer that sends a PROXY header
 * is set up so that the pod's peer is the balancer itself and that peer is in the trusted range (otherwise the gateway
 * closes every device as {@code untrusted_proxy}); PROXY is on at both ends or at neither; a configuration change
 * reaches running pods (a directory mount of a fixed-name ConfigMap, watched by the gateway) instead of rolling the
 * fleet; the operator API component takes its token from a Secret on a listener of its own.
 */
class KubernetesOverlaysTest {
    private static final Path DIR = Path.of("kubernetes");
    private static final String AWS = "service.beta.kubernetes.io/aws-load-balancer-";

    @TempDir
    Path tmp;

    @Test
    void aConfigChangeReachesRunningPodsInsteadOfRollingTheFleet() throws Exception {
        Kustomization k = Kustomization.render(DIR.resolve("base"));
        Kustomization.Generated config = k.configMaps.get("mqtt-gateway-config");
        // a hash-named ConfigMap is a new object on every edit, so the Deployment changes and every pod restarts
        assertFalse(config.hashSuffix(), "the config ConfigMap must keep its name across edits");
        Map<String, Object> pod = podSpec(k);
        Map<String, Object> container = KubernetesManifestsIT.map(KubernetesManifestsIT.list(pod, "containers").get(0));
        Map<String, Object> volume = KubernetesManifestsIT.list(pod, "volumes").stream()
                .map(KubernetesManifestsIT::map).filter(v -> v.containsKey("configMap") && "mqtt-gateway-config"
                        .equals(KubernetesManifestsIT.map(v.get("configMap")).get("name"))).findFirst().orElseThrow();
        Map<String, Object> mount = KubernetesManifestsIT.list(container, "volumeMounts").stream()
                .map(KubernetesManifestsIT::map).filter(m -> volume.get("name").equals(m.get("name"))).findFirst()
                .orElseThrow();
        assertFalse(mount.containsKey("subPath"), "the kubelet never updates a subPath mount");
        List<Object> args = KubernetesManifestsIT.list(container, "args");
        String file = (String) args.get(args.indexOf("--config") + 1);
        assertEquals(mount.get("mountPath") + "/gateway.yaml", file, "--config must read the mounted directory");
        ConfigValues values = KubernetesManifestsIT.load(config.data().get("gateway.yaml"),
                k.configMaps.get("mqtt-gateway-env").data());
        assertTrue(values.get(CoreConfigKeys.CONFIG_WATCH_INTERVAL).toSeconds() > 0,
                "config.watch-interval off: an updated file would wait for a restart");
        assertTrue(values.find(CoreConfigKeys.ADMIN_OPERATIONS_TOKEN_FILE).isEmpty(), "the base leaves operations off");
    }

    @Test
    void theOperatorApiComponentTakesItsTokenFromASecretOnAListenerOfItsOwn() throws Exception {
        Files.writeString(tmp.resolve("kustomization.yaml"), "resources:\n  - " + DIR.resolve("base").toAbsolutePath()
                + "\ncomponents:\n  - " + DIR.resolve("components/operator-api").toAbsolutePath() + "\n");
        Kustomization k = Kustomization.render(tmp);
        Map<String, String> env = k.configMaps.get("mqtt-gateway-env").data();
        ConfigValues values = KubernetesManifestsIT.load(k.configMaps.get("mqtt-gateway-config").data()
                .get("gateway.yaml"), env);
        Map<String, Object> pod = podSpec(k);
        Map<String, Object> container = KubernetesManifestsIT.map(KubernetesManifestsIT.list(pod, "containers").get(0));

        String tokenFile = values.find(CoreConfigKeys.ADMIN_OPERATIONS_TOKEN_FILE).orElse(null);
        Map<String, Object> mount = KubernetesManifestsIT.list(container, "volumeMounts").stream()
                .map(KubernetesManifestsIT::map).filter(m -> tokenFile != null
                        && tokenFile.startsWith(m.get("mountPath") + "/")).findFirst().orElseThrow(
                                () -> new AssertionError("the token file " + tokenFile + " is in no mount"));
        assertFalse(mount.containsKey("subPath"), "a rotated token must reach the pod");
        Map<String, Object> volume = KubernetesManifestsIT.list(pod, "volumes").stream()
                .map(KubernetesManifestsIT::map).filter(v -> mount.get("name").equals(v.get("name"))).findFirst()
                .orElseThrow();
        assertTrue(volume.containsKey("secret"), "the token comes from a Secret");

        // a listener of its own: the admin port Prometheus and the kubelet reach stays read-only
        Integer operationsPort = values.find(CoreConfigKeys.ADMIN_OPERATIONS_PORT).orElse(null);
        assertTrue(operationsPort != null && operationsPort != values.get(CoreConfigKeys.ADMIN_PORT).intValue());
        String portName = KubernetesManifestsIT.list(container, "ports").stream().map(KubernetesManifestsIT::map)
                .filter(p -> operationsPort.equals(p.get("containerPort"))).map(p -> (String) p.get("name"))
                .findFirst().orElseThrow(() -> new AssertionError("no container port " + operationsPort));
        Map<String, Object> service = k.documents.stream().filter(d -> "Service".equals(d.get("kind"))
                && "mqtt-gateway-operations".equals(KubernetesManifestsIT.map(d.get("metadata")).get("name")))
                .map(d -> KubernetesManifestsIT.map(d.get("spec"))).findFirst().orElseThrow();
        assertEquals("None", service.get("clusterIP"), "per-node API: one address per pod, never the balancer");
        assertEquals(portName, KubernetesManifestsIT.map(KubernetesManifestsIT.list(service, "ports").get(0))
                .get("targetPort"));
    }

    private static Map<String, Object> podSpec(Kustomization k) {
        Map<String, Object> deployment = k.documents.stream().filter(d -> "Deployment".equals(d.get("kind")))
                .findFirst().orElseThrow();
        return KubernetesManifestsIT.map(KubernetesManifestsIT.map(KubernetesManifestsIT.map(deployment.get("spec"))
                .get("template")).get("spec"));
    }

    @Test
    void everyOverlaySendsPROXYOnlyWhereTheGatewayRequiresIt() throws Exception {
        List<Path> overlays;
        try (Stream<Path> list = Files.list(DIR.resolve("overlays"))) {
            overlays = list.filter(Files::isDirectory).sorted().toList();
        }
        assertTrue(overlays.size() >= 2, overlays.toString());
        for (Path overlay : overlays) {
            Kustomization k = Kustomization.render(overlay);
            Map<String, String> annotations = annotations(k);
            Map<String, String> env = k.configMaps.get("mqtt-gateway-env").data();
            boolean gatewayProxy = "true".equals(env.get("MQTTGW_LISTENER_TLS_PROXY_PROTOCOL"));
            boolean balancerProxy = annotations.entrySet().stream().anyMatch(a -> a.getKey().contains("proxy-protocol")
                    || a.getKey().contains("proxyprotocol"));
            assertEquals(balancerProxy, gatewayProxy, overlay + ": PROXY protocol on one side only refuses everyone");
            if (gatewayProxy) {
                String trusted = env.get("MQTTGW_PROXY_PROTOCOL_TRUSTED_SOURCES");
                assertTrue(trusted != null && !trusted.isBlank(), overlay + ": no trusted PROXY senders");
                for (String range : trusted.split(",")) {
                    String ip = range.trim().split("/")[0];
                    assertTrue(InetAddress.getByName(ip).isSiteLocalAddress(), overlay + ": trusted range " + range
                            + " is not a private (balancer) range");
                }
            }
        }
    }

    @Test
    void theAwsNlbHandsThePodItsOwnAddressAndTheDevicesInThePROXYHeader() throws Exception {
        Kustomization k = Kustomization.render(DIR.resolve("overlays/aws-nlb"));
        Map<String, String> a = annotations(k);
        assertEquals("*", a.get(AWS + "proxy-protocol"));
        // instance targets keep the client address by default; so would IP targets with preservation on
        assertEquals("ip", a.get(AWS + "nlb-target-type"), "instance targets show the device's address as the peer");
        assertTrue(a.getOrDefault(AWS + "target-group-attributes", "").contains("preserve_client_ip.enabled=false"),
                "client IP preservation must be off: the peer must be the NLB, in the trusted range");
        // the NLB's TCP health checks send no PROXY header; readiness is the signal that should steer devices
        assertEquals("http", a.get(AWS + "healthcheck-protocol"));
        assertEquals("/health/ready", a.get(AWS + "healthcheck-path"));
        Map<String, Object> deployment = k.documents.stream().filter(d -> "Deployment".equals(d.get("kind")))
                .findFirst().orElseThrow();
        Map<String, Object> container = KubernetesManifestsIT.map(KubernetesManifestsIT.list(KubernetesManifestsIT.map(
                KubernetesManifestsIT.map(KubernetesManifestsIT.map(deployment.get("spec")).get("template"))
                        .get("spec")), "containers").get(0));
        Object adminPort = KubernetesManifestsIT.list(container, "ports").stream().map(KubernetesManifestsIT::map)
                .filter(p -> "admin".equals(p.get("name"))).findFirst().orElseThrow().get("containerPort");
        assertEquals(String.valueOf(adminPort), a.get(AWS + "healthcheck-port"), "health check on the admin port");
        assertFalse(k.configMaps.get("mqtt-gateway-env").data().get("MQTTGW_PROXY_PROTOCOL_TRUSTED_SOURCES")
                .contains("0.0.0.0/0"), "everyone may not speak for a device's address");
    }

    /** This test's renderer against the real one, where kubectl is installed: what the checks above read agrees. */
    @Test
    void rendersTheOverlaysAsKubectlDoes() throws Exception {
        Path kubectl = Path.of("/usr/bin/kubectl");
        Assumptions.assumeTrue(Files.isExecutable(kubectl), "kubectl is not installed");
        List<Path> overlays;
        try (Stream<Path> list = Files.list(DIR.resolve("overlays"))) {
            overlays = list.filter(Files::isDirectory).sorted().toList();
        }
        for (Path overlay : overlays) {
            Process p = new ProcessBuilder(kubectl.toString(), "kustomize", overlay.toString()).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, out);
            List<Map<String, Object>> real = new ArrayList<>();
            for (Object doc : new Yaml().loadAll(out)) {
                real.add(KubernetesManifestsIT.map(doc));
            }
            Kustomization mine = Kustomization.render(overlay);
            Map<String, Object> realService = real.stream().filter(d -> "Service".equals(d.get("kind"))
                    && "mqtt-gateway".equals(KubernetesManifestsIT.map(d.get("metadata")).get("name"))).findFirst()
                    .orElseThrow();
            assertEquals(KubernetesManifestsIT.map(realService.get("metadata")).get("annotations"), annotations(mine),
                    overlay.toString());
            for (Kustomization.Generated generated : mine.configMaps.values()) {
                Map<String, Object> configMap = real.stream().filter(d -> "ConfigMap".equals(d.get("kind"))
                        && String.valueOf(KubernetesManifestsIT.map(d.get("metadata")).get("name"))
                                .startsWith(generated.name())).findFirst().orElseThrow();
                String name = (String) KubernetesManifestsIT.map(configMap.get("metadata")).get("name");
                assertEquals(generated.hashSuffix(), !name.equals(generated.name()), overlay + ": " + name);
                Map<String, Object> data = KubernetesManifestsIT.map(configMap.get("data"));
                assertEquals(generated.data().keySet(), data.keySet(), overlay + ": " + name);
                generated.data().forEach((k, v) -> assertEquals(v, String.valueOf(data.get(k)), overlay + ": " + k));
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> annotations(Kustomization k) {
        Map<String, Object> service = k.documents.stream().filter(d -> "Service".equals(d.get("kind"))
                && "mqtt-gateway".equals(KubernetesManifestsIT.map(d.get("metadata")).get("name"))).findFirst()
                .orElseThrow();
        Object annotations = KubernetesManifestsIT.map(service.get("metadata")).get("annotations");
        return annotations == null ? Map.of() : (Map<String, String>) annotations;
    }
}
