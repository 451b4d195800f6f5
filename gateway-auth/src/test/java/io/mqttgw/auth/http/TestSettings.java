package io.mqttgw.auth.http;

import io.mqttgw.core.config.ConfigLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/** Settings of the http authenticator read from YAML the way the gateway reads them. */
final class TestSettings {
    private TestSettings() {
    }

    static HttpAuthSettings from(Path dir, String yaml) {
        return HttpAuthSettings.from(values(dir, yaml));
    }

    /** The whole configuration, as a reload hands it to the authenticator (a node without listeners' files). */
    static io.mqttgw.core.config.GatewayConfig config(Path dir, String yaml) {
        return io.mqttgw.core.config.GatewayConfig.from(values(dir, "listener.tls.enabled: false\n"
                + "listener.tcp.enabled: true\n" + yaml));
    }

    private static io.mqttgw.core.config.ConfigValues values(Path dir, String yaml) {
        try {
            Path file = Files.writeString(Files.createDirectories(dir).resolve("gateway-" + System.nanoTime()
                    + ".yaml"), yaml);
            return new ConfigLoader(ConfigLoader.withCoreKeys(HttpAuthConfigKeys.ALL),
                    List.of(HttpAuthConfigKeys.HEADERS), Map.of(), new Properties()).load(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
