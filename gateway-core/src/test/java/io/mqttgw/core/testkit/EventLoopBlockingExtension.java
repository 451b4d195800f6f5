package io.mqttgw.core.testkit;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test in which an event-loop thread (any Netty event loop of the JVM: the gateway's, and the Redis and MQTT
 * clients') made a blocking call, as BlockHound saw it ({@link EventLoopBlockingRecorder}). Registered for every test
 * by ServiceLoader, like {@link LeakDetectionExtension}; installs BlockHound before the first test class's set-up.
 * Checked after each test and after the class, so calls from {@code @BeforeAll} set-up or a gateway's shutdown count
 * too. On when {@code -Dmqttgw.test.blocking-guard=true}, which the build sets for the integration tests (Failsafe)
 * together with the JVM flag BlockHound needs; then it fails when BlockHound cannot be installed.
 */
public final class EventLoopBlockingExtension implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {
    private static final boolean ENABLED = Boolean.getBoolean("mqttgw.test.blocking-guard");

    @Override
    public void beforeAll(ExtensionContext context) {
        if (!ENABLED) {
            return;
        }
        try {
            EventLoopBlockingRecorder.install();
        } catch (RuntimeException e) {
            fail("the event-loop blocking guard cannot install BlockHound: the JVM must run with "
                    + "-XX:+AllowRedefinitionToAddDeleteMethods (JDK 13+), as the build passes it to Failsafe", e);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        check(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        check(context);
    }

    private static void check(ExtensionContext context) {
        if (!ENABLED) {
            return;
        }
        EventLoopBlockingRecorder.Drained calls = EventLoopBlockingRecorder.drain();
        if (calls.count() > 0) {
            fail(calls.count() + " blocking call(s) on an event loop during or before " + context.getDisplayName()
                    + ":\n" + String.join("\n", calls.traces()));
        }
    }
}
