package io.mqttgw.core.testkit;

import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.spi.Providers;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/**
 * Configuration for a gateway started inside a test: every listener on 127.0.0.1 with an ephemeral port, the test
 * PKI, files under the test's directory, short timeouts so the test stops by itself, and an event-loop lag threshold
 * a loaded CI machine will not reach by accident. {@link #with} overrides a key.
 */
public final class TestGateway {
    /** The system property naming the socket transport of every test gateway; unset: the default. */
    public static final String TRANSPORT_PROPERTY = "mqttgw.test.transport";

    private final Properties properties = new Properties();

    private TestGateway() {
    }

    /** A TLS listener with {@code pki}'s server files and device CA, plus the admin endpoint. */
    public static TestGateway tls(TestPki pki, Path dir) {
        return common(dir)
                .with("listener.tls.bind", "127.0.0.1")
                .with("listener.tls.port", "0")
                .with("listener.tls.cert-file", pki.certFile().toString())
                .with("listener.tls.key-file", pki.keyFile().toString())
                .with("listener.tls.ca-file", pki.caFile().toString())
                .with("listener.tls.reload-interval", "0s");
    }

    /** Only the plain TCP listener; devices need no certificate. */
    public static TestGateway tcp(Path dir) {
        return common(dir)
                .with("listener.tls.enabled", "false")
                .with("listener.tcp.enabled", "true")
                .with("auth.certificate.allow-without-certificate", "true");
    }

    /** What every test gateway shares: loopback listeners on ephemeral ports, the admin endpoint, quick shutdown. */
    private static TestGateway common(Path dir) {
        TestGateway gateway = new TestGateway();
        // -Dmqttgw.test.transport=nio runs the integration tests' gateways on another socket transport than the
        // default; a test that sets server.transport itself still decides for its own gateway
        String transport = System.getProperty(TRANSPORT_PROPERTY);
        if (transport != null && !transport.isBlank()) {
            gateway.with("server.transport", transport);
        }
        return gateway
                .with("node.id", "test-node")
                .with("server.io-threads", "2")
                .with("listener.tcp.bind", "127.0.0.1")
                .with("listener.tcp.port", "0")
                .with("admin.bind", "127.0.0.1")
                .with("admin.port", "0")
                .with("uplink.file.dir", dir.resolve("uplink").toString())
                .with("shutdown.timeout", "2s")
                // no balancer in front of a test gateway: nothing to wait for
                .with("shutdown.ready-grace", "0s")
                .with("overload.event-loop-lag", "5s");
    }

    /** The token {@link #withOperatorToken} writes, under the id {@code test-operator}. */
    public static final String OPERATOR_TOKEN = "test-operator-0123456789abcdef0123456789abcdef";

    /**
     * Turns the admin operations (/downlink, ...) on with a token file in {@code dir} holding {@link #OPERATOR_TOKEN}.
     */
    public TestGateway withOperatorToken(Path dir) {
        try {
            Path file = java.nio.file.Files.writeString(dir.resolve("admin-tokens"),
                    "test-operator:" + OPERATOR_TOKEN + "\n");
            return with("admin.operations.token-file", file.toString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    public TestGateway with(String key, String value) {
        properties.setProperty("mqttgw." + key, value);
        return this;
    }

    /** These settings as JVM options ({@code -Dmqttgw.key=value}), for a node started as a process of its own. */
    public java.util.List<String> jvmOptions() {
        return properties.stringPropertyNames().stream().sorted()
                .map(k -> "-D" + k + "=" + properties.getProperty(k)).toList();
    }

    public GatewayConfig config() {
        return Gateway.configure(null, Providers.discover(), Map.of(), properties);
    }

    public Gateway start() {
        return Gateway.start(config(), Providers.discover());
    }

    /** Starts with {@code file} as the config file under these overrides; the gateway can reload it. */
    public Gateway startWithFile(Path file) {
        Providers providers = Providers.discover();
        return Gateway.start(Gateway.configure(file, providers, Map.of(), properties), providers, file, Map.of(),
                properties);
    }
}
