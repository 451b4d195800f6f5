package io.mqttgw.core.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.config.ConfigException;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.testkit.TestGateway;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AdminOperationsConfigTest {
    @TempDir
    Path dir;

    @Test
    void bindsTheAdminPlaneToLoopbackWithOperationsOffByDefault() {
        GatewayConfig.Admin admin = TestGateway.tcp(dir).with("admin.bind", "127.0.0.1").config().admin();
        assertEquals("127.0.0.1", io.mqttgw.core.config.CoreConfigKeys.ADMIN_BIND.defaultValue());
        assertFalse(admin.operations().enabled());
        assertFalse(admin.operations().separateListener());
        assertEquals(16 * 1024, admin.operations().maxPayload());
    }

    @Test
    void refusesOperatorTlsWithoutItsOwnListenerOrWithoutAllThreeFiles() {
        ConfigException shared = assertThrows(ConfigException.class, () -> TestGateway.tcp(dir)
                .with("admin.operations.tls.cert-file", "a.pem").with("admin.operations.tls.key-file", "a.key")
                .with("admin.operations.tls.ca-file", "ca.pem").config());
        assertTrue(shared.getMessage().contains("admin.operations.port"), shared.getMessage());
        ConfigException partial = assertThrows(ConfigException.class, () -> TestGateway.tcp(dir)
                .with("admin.operations.port", "0").with("admin.operations.tls.ca-file", "ca.pem").config());
        assertTrue(partial.getMessage().contains("admin.operations.tls.key-file"), partial.getMessage());
    }

    @Test
    void refusesOperationsWhileTheAdminPlaneIsOff() {
        ConfigException e = assertThrows(ConfigException.class, () -> TestGateway.tcp(dir)
                .with("admin.enabled", "false").with("admin.operations.token-file", "tokens").config());
        assertTrue(e.getMessage().contains("admin.enabled"), e.getMessage());
    }

    @Test
    void refusesToStartWithAnEmptyOrUnreadableTokenFileNamingTheKey() throws Exception {
        Path empty = Files.writeString(dir.resolve("empty-tokens"), "# no token yet\n");
        for (Path file : new Path[] {empty, dir.resolve("no-such-file")}) {
            ConfigException e = assertThrows(ConfigException.class, () -> TestGateway.tcp(dir)
                    .with("admin.operations.token-file", file.toString()).start().close());
            assertTrue(e.getMessage().startsWith("admin.operations.token-file = '" + file + "'"), e.getMessage());
        }
    }
}
