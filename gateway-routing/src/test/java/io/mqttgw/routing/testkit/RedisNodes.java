package io.mqttgw.routing.testkit;

import io.mqttgw.core.testkit.TestGateway;
import io.mqttgw.core.testkit.TestPki;
import org.junit.jupiter.api.BeforeAll;

/**
 * Base of the integration tests in which several gateway nodes in one JVM share one real redis-server as their route
 * table: the server, a checking client and the device PKI for the whole class, and a node builder with the shared
 * settings (the test adds its own and starts it).
 */
public abstract class RedisNodes extends RedisServerTests {
    protected static TestPki pki;

    @BeforeAll
    static void createPki() {
        pki = TestPki.create(dir.resolve("pki"));
    }

    /** A mutual-TLS node named {@code id} on the shared Redis route table, not started yet. */
    protected static TestGateway redisNode(String id) {
        return TestGateway.tls(pki, dir.resolve(id)).with("node.id", id).with("routes.provider", "redis")
                .with("routes.redis.address", redis.address()).with("routes.redis.flush-interval", "5ms")
                .with("routes.redis.timeout", "2s");
    }
}
