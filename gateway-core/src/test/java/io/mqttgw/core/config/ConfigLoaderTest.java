package io.mqttgw.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
    @TempDir
    Path dir;

    private ConfigValues load(String yaml, Map<String, String> env, Properties props) throws Exception {
        Path file = yaml == null ? null : Files.writeString(dir.resolve("gateway.yaml"), yaml);
        return new ConfigLoader(CoreConfigKeys.ALL, env, props).load(file);
    }

    private ConfigValues load(String yaml) throws Exception {
        return load(yaml, Map.of(), new Properties());
    }

    private static final String TLS_FILES = "listener:\n  tls:\n    cert-file: s.pem\n    key-file: s.key\n"
            + "    ca-file: ca.pem\n";

    @Test
    void appliesDefaultsToKeysNotGiven() throws Exception {
        GatewayConfig c = GatewayConfig.from(load(TLS_FILES));
        assertEquals(8883, c.tls().port());
        assertEquals("require", c.tls().clientAuth());
        assertEquals(Duration.ofSeconds(10), c.tls().handshakeTimeout());
        assertEquals(List.of("TLSv1.3", "TLSv1.2"), c.tls().protocols());
        assertEquals(256 * 1024, c.mqtt().maxPacketSize());
        assertTrue(c.identity().clientIdMustMatch());
        assertEquals("file", c.uplinkSink());
        assertFalse(c.tcp().enabled());
    }

    @Test
    void readsNestedAndDottedKeysAndResolvesPathsAgainstTheFile() throws Exception {
        GatewayConfig c = GatewayConfig.from(load(TLS_FILES + "mqtt.max-packet-size: 64KiB\nmqtt:\n"
                + "  connect-timeout: 500ms\nlistener.tls.protocols: [TLSv1.3]\n"));
        assertEquals(64 * 1024, c.mqtt().maxPacketSize());
        assertEquals(Duration.ofMillis(500), c.mqtt().connectTimeout());
        assertEquals(List.of("TLSv1.3"), c.tls().protocols());
        assertEquals(dir.resolve("s.pem").toAbsolutePath(), c.tls().certFile());
    }

    @Test
    void systemPropertyOverridesEnvironmentWhichOverridesTheFile() throws Exception {
        Properties props = new Properties();
        props.setProperty("mqttgw.listener.tls.port", "9001");
        ConfigValues v = load(TLS_FILES + "listener.tls.port: 7000\nadmin.port: 7001\n",
                Map.of("MQTTGW_LISTENER_TLS_PORT", "8000", "MQTTGW_ADMIN_PORT", "8001"), props);
        assertEquals(9001, v.get(CoreConfigKeys.TLS_PORT));
        assertEquals(8001, v.get(CoreConfigKeys.ADMIN_PORT));
        assertEquals("system property -Dmqttgw.listener.tls.port", v.source(CoreConfigKeys.TLS_PORT));
    }

    @Test
    void refusesUnknownKeyAndSuggestsTheClosest() {
        ConfigException e = assertThrows(ConfigException.class, () -> load(TLS_FILES + "mqtt.conect-timeout: 5s\n"));
        assertTrue(e.getMessage().contains("unknown key 'mqtt.conect-timeout'"), e.getMessage());
        assertTrue(e.getMessage().contains("did you mean 'mqtt.connect-timeout'"), e.getMessage());
    }

    @Test
    void namesTheKeyTheValueItsSourceAndWhatIsAllowed() {
        ConfigException e = assertThrows(ConfigException.class, () -> load(TLS_FILES,
                Map.of("MQTTGW_LISTENER_TLS_PORT", "99999"), new Properties()));
        assertEquals("listener.tls.port = '99999' (from environment variable MQTTGW_LISTENER_TLS_PORT) is out of "
                + "range; allowed: 0 to 65535; 0 picks a free port", e.getMessage());
    }

    @Test
    void rejectsValuesOfTheWrongShape() {
        assertTrue(assertThrows(ConfigException.class, () -> load(TLS_FILES + "mqtt.connect-timeout: 10\n"))
                .getMessage().contains("mqtt.connect-timeout = '10'"));
        assertTrue(assertThrows(ConfigException.class, () -> load(TLS_FILES + "listener.tls.client-auth: maybe\n"))
                .getMessage().contains("allowed: require, optional or none"));
        assertTrue(assertThrows(ConfigException.class, () -> load(TLS_FILES + "listener.tls.protocols: TLSv1.1\n"))
                .getMessage().contains("listener.tls.protocols"));
        assertTrue(assertThrows(ConfigException.class, () -> load(TLS_FILES + "listener.tls.groups: x448\n"))
                .getMessage().contains("listener.tls.groups"));
        assertTrue(assertThrows(ConfigException.class, () -> load(TLS_FILES + "admin.enabled: sure\n"))
                .getMessage().contains("not true or false"));
    }

    @Test
    void refusesADrainThatWouldTellDevicesNonsenseByNamingTheKey() throws Exception {
        for (String bad : List.of("shutdown.server-reference: \"gw2\\u0000:8883\"\n",
                "shutdown.server-reference: \"" + "g".repeat(201) + "\"\n",
                "shutdown.server-reference: \"gw2.example.net:8883 \\u00e9\"\n")) {
            ConfigException e = assertThrows(ConfigException.class, () -> load(TLS_FILES + bad));
            assertTrue(e.getMessage().startsWith("shutdown.server-reference = '"), e.getMessage());
        }
        for (String rate : List.of("0", "-5", "fast")) {
            ConfigException e = assertThrows(ConfigException.class,
                    () -> load(TLS_FILES + "shutdown.drain-rate: " + rate + "\n"));
            assertTrue(e.getMessage().startsWith("shutdown.drain-rate = '" + rate + "'"), e.getMessage());
        }
        ConfigException renamed = assertThrows(ConfigException.class,
                () -> load(TLS_FILES + "shutdown.close-rate: 500\n"));
        assertTrue(renamed.getMessage().contains("(renamed to 'shutdown.drain-rate')"), renamed.getMessage());
        ConfigException renamedVariable = assertThrows(ConfigException.class, () -> load(TLS_FILES,
                Map.of("MQTTGW_SHUTDOWN_CLOSE_RATE", "500"), new Properties()));
        assertTrue(renamedVariable.getMessage().contains("(renamed to MQTTGW_SHUTDOWN_DRAIN_RATE)"),
                renamedVariable.getMessage());
        GatewayConfig c = GatewayConfig.from(load(TLS_FILES + "shutdown.server-reference: gw2.example.net:8883\n"));
        assertEquals("gw2.example.net:8883", c.shutdown().serverReference());
        assertEquals(2000, c.shutdown().drainRatePerSecond());
        assertEquals(null, GatewayConfig.from(load(TLS_FILES)).shutdown().serverReference(), "0x8B by default");
    }

    @Test
    void requiresTlsFilesWhileTheTlsListenerIsOn() {
        ConfigException e = assertThrows(ConfigException.class, () -> GatewayConfig.from(load("admin.port: 1\n")));
        assertTrue(e.getMessage().startsWith("listener.tls.cert-file is required while listener.tls.enabled is true"),
                e.getMessage());
        assertTrue(e.getMessage().contains("MQTTGW_LISTENER_TLS_CERT_FILE"), e.getMessage());
    }

    @Test
    void needsAtLeastOneListener() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> GatewayConfig.from(load("listener.tls.enabled: false\n")));
        assertTrue(e.getMessage().contains("no listener is enabled"), e.getMessage());
    }

    @Test
    void wantsTheHighWaterMarkAboveTheLow() {
        ConfigException e = assertThrows(ConfigException.class, () -> GatewayConfig.from(load(TLS_FILES
                + "server.write-buffer-low-water-mark: 64KiB\nserver.write-buffer-high-water-mark: 32KiB\n")));
        assertTrue(e.getMessage().startsWith("server.write-buffer-high-water-mark = '32768'"), e.getMessage());
        assertTrue(e.getMessage().contains("is not above server.write-buffer-low-water-mark"), e.getMessage());
    }

    @Test
    void reportsYamlThatIsNotAMapping() {
        ConfigException e = assertThrows(ConfigException.class, () -> load("- a\n- b\n"));
        assertTrue(e.getMessage().contains("must hold a YAML mapping"), e.getMessage());
        ConfigException syntax = assertThrows(ConfigException.class, () -> load("a: [\n"));
        assertTrue(syntax.getMessage().contains("is not valid YAML"), syntax.getMessage());
    }

    @Test
    void runsOnDefaultsAndOverridesAloneWithoutAFile() throws Exception {
        ConfigValues v = load(null, Map.of("MQTTGW_LISTENER_TLS_ENABLED", "false", "MQTTGW_LISTENER_TCP_ENABLED",
                "true"), new Properties());
        GatewayConfig c = GatewayConfig.from(v);
        assertTrue(c.tcp().enabled());
        assertFalse(c.tls().enabled());
    }

    @Test
    void passesKeysUnderAnOpenPrefixThroughFromFileAndSystemProperties() throws Exception {
        Properties props = new Properties();
        props.setProperty("mqttgw.lib.client.retries", "7");
        Path file = Files.writeString(dir.resolve("open.yaml"), TLS_FILES + "lib:\n  client:\n    linger.ms: 5\n");
        ConfigValues v = new ConfigLoader(CoreConfigKeys.ALL, List.of("lib.client."), Map.of(), props).load(file);
        assertEquals(Map.of("linger.ms", "5", "retries", "7"), v.under("lib.client."));
        assertThrows(ConfigException.class, () -> new ConfigLoader(CoreConfigKeys.ALL, List.of("lib.client."),
                Map.of(), new Properties()).load(Files.writeString(dir.resolve("bad.yaml"), TLS_FILES
                + "lib.other: 1\n")));
    }

    @Test
    void refusesAnEnvironmentVariableThatNamesNoKeyWithTheClosestOne() {
        ConfigException e = assertThrows(ConfigException.class, () -> load(TLS_FILES,
                Map.of("MQTTGW_LISTENER_TLS_PORTT", "8884", "PATH", "/usr/bin", "MQTTGWX", "not ours"),
                new Properties()));
        assertTrue(e.getMessage().startsWith("unknown environment variable MQTTGW_LISTENER_TLS_PORTT (did you mean "
                + "'MQTTGW_LISTENER_TLS_PORT'?)"), e.getMessage());
    }

    @Test
    void refusesAnEnvironmentVariableUnderAnOpenPrefixAndSaysWhereSuchKeysGo() throws Exception {
        Path file = Files.writeString(dir.resolve("open-env.yaml"), TLS_FILES);
        ConfigException e = assertThrows(ConfigException.class, () -> new ConfigLoader(CoreConfigKeys.ALL,
                List.of("lib.client."), Map.of("MQTTGW_LIB_CLIENT_LINGER_MS", "5"), new Properties()).load(file));
        assertTrue(e.getMessage().contains("keys under lib.client. pass through as they are written"), e.getMessage());
    }
}
