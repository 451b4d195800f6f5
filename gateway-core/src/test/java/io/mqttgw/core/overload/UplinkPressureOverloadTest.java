package io.mqttgw.core.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.core.admission.AdmissionControl;
import io.mqttgw.core.config.ConfigLoader;
import io.mqttgw.core.config.CoreConfigKeys;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.spi.OverloadListener;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full uplink sink pauses the publishing devices' reading; whether it also closes the listeners is the operator's
 * choice, off unless configured.
 */
class UplinkPressureOverloadTest {
    private static final String TLS_FILES = "listener:\n  tls:\n    cert-file: s.pem\n    key-file: s.key\n"
            + "    ca-file: ca.pem\n";

    @TempDir
    Path dir;
    private final EventLoopGroup loops = new DefaultEventLoopGroup(1);
    private final List<Boolean> changes = new ArrayList<>();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    @AfterEach
    void stop() throws Exception {
        loops.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
    }

    private OverloadMonitor monitor(String yaml) throws Exception {
        Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, TLS_FILES + yaml, StandardCharsets.UTF_8);
        GatewayConfig config = GatewayConfig.from(new ConfigLoader(CoreConfigKeys.ALL, Map.of(), new Properties())
                .load(file));
        OverloadListener listener = (overloaded, signals, samples) -> changes.add(overloaded);
        return new OverloadMonitor(config.overload(), loops, new AdmissionControl(0, 0, meters), () -> 1.0,
                () -> 0.0, List.of(listener), meters);
    }

    @Test
    void fullUplinkSinkDoesNotOverloadTheNodeByDefault() throws Exception {
        try (OverloadMonitor monitor = monitor("")) {
            monitor.sample();
            monitor.sample();
            assertFalse(monitor.overloaded());
            assertTrue(changes.isEmpty(), "no listener closed or refused anything: " + changes);
            // still visible to operators
            assertEquals(1.0, meters.get("mqttgw.overload.signal").tag("signal", "uplink_pressure").gauge().value());
        }
    }

    @Test
    void fullUplinkSinkOverloadsTheNodeWhenConfigured() throws Exception {
        try (OverloadMonitor monitor = monitor("overload.uplink-pressure: 95\n")) {
            monitor.sample();
            assertTrue(monitor.overloaded());
            assertEquals(List.of(true), changes);
        }
    }
}
