package io.mqttgw.bench;

import java.util.Properties;

/**
 * A node's configuration for a benchmark that drives the gateway's parts in process and starts no listener: the
 * validation wants one listener enabled, and plain TCP is the one that needs no certificate files; the admin plane
 * stays off. Each benchmark adds its own keys to what this returns.
 */
public final class NodeWithoutListeners {
    private NodeWithoutListeners() {
    }

    public static Properties properties(String nodeId) {
        Properties p = new Properties();
        p.setProperty("mqttgw.node.id", nodeId);
        p.setProperty("mqttgw.listener.tls.enabled", "false");
        p.setProperty("mqttgw.listener.tcp.enabled", "true");
        p.setProperty("mqttgw.admin.enabled", "false");
        return p;
    }
}
