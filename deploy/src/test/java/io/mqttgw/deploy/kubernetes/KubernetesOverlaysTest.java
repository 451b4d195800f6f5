package io.mqttgw.deploy.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The overlays as kustomize renders them ({@link Kustomization}), without kubectl: a balancer that sends a PROXY header
 * is set up so that the pod's peer is the balancer itself and that peer is in the trusted range (otherwise the gateway
 * closes every device as {@code untrusted_proxy}); PROXY is on at both ends or at neither.
 */
class KubernetesOverlaysTest {
    private static final Path DIR = Path.of("kubernetes");
    private static final String AWS = "service.beta.kubernetes.io/aws-load-balancer-";

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

    @SuppressWarnings("unchecked")
    private static Map<String, String> annotations(Kustomization k) {
        Map<String, Object> service = k.documents.stream().filter(d -> "Service".equals(d.get("kind"))
                && "mqtt-gateway".equals(KubernetesManifestsIT.map(d.get("metadata")).get("name"))).findFirst()
                .orElseThrow();
        Object annotations = KubernetesManifestsIT.map(service.get("metadata")).get("annotations");
        return annotations == null ? Map.of() : (Map<String, String>) annotations;
    }
}
