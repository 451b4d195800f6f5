package io.mqttgw.bench.sim.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

class GatewayNodeTest {

    @Test
    void readsNodesWithAnAdminPortAReadyUrlOrNeither() {
        List<GatewayNode> nodes = GatewayNode.parseList("nodes",
                "127.0.0.1:18831/19091, 10.0.0.2:8883@http://10.0.0.2:9090/health/ready,gw3:8883");
        assertEquals(new GatewayNode("127.0.0.1", 18831, URI.create("http://127.0.0.1:19091/health/ready")),
                nodes.get(0));
        assertEquals(URI.create("http://10.0.0.2:9090/health/ready"), nodes.get(1).ready());
        assertEquals("gw3:8883", nodes.get(2).address());
        assertNull(nodes.get(2).ready());
    }

    @Test
    void refusesANodeWithoutAPortOrWithABadOne() {
        assertThrows(BadArgumentException.class, () -> GatewayNode.parseList("nodes", "127.0.0.1"));
        assertThrows(BadArgumentException.class, () -> GatewayNode.parseList("nodes", "127.0.0.1:0"));
        assertThrows(BadArgumentException.class, () -> GatewayNode.parseList("nodes", "127.0.0.1:1/x"));
        assertThrows(BadArgumentException.class, () -> GatewayNode.parseList("nodes", "127.0.0.1:1@ftp://x/"));
    }
}
