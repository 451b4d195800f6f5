package io.mqttgw.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.mqttgw.core.config.ConfigKey;
import io.mqttgw.core.config.ConfigLoader;
import io.mqttgw.core.config.ConfigValues;
import io.mqttgw.core.config.CoreConfigKeys;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.spi.Providers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution's config/gateway.yaml is valid as shipped and lists every key of gateway-core, each commented-out
 * one with its real default, so the sample cannot drift from {@link CoreConfigKeys} and the providers' keys. A
 * commented-out setting is a
 * line {@code # key: value} (the '#' and one space removed, it is a YAML line); prose comments start otherwise.
 */
class SampleConfigTest {
    private static final Path SAMPLE = Path.of("src/main/dist/config/gateway.yaml");
    private static final Pattern COMMENTED_SETTING =
            Pattern.compile("^([ \\t]*)# ([ \\t]*[a-z][a-z0-9.-]*:(?:[ \\t].*)?)$", Pattern.MULTILINE);

    @TempDir
    Path dir;

    @Test
    void isValidAsShipped() {
        GatewayConfig.from(load(SAMPLE));
    }

    @Test
    void listsEveryKeyOfCoreAndTheProvidersWithItsDefault() throws Exception {
        ConfigValues shipped = load(SAMPLE);
        Path uncommented = dir.resolve("gateway.yaml");
        Files.writeString(uncommented, COMMENTED_SETTING.matcher(Files.readString(SAMPLE)).replaceAll("$1$2"));
        ConfigValues all = load(uncommented);

        for (ConfigKey<?> key : ConfigLoader.withCoreKeys(Providers.discover().configKeys())) {
            assertNotEquals("default", all.source(key), key.name() + " is not in " + SAMPLE);
            if ("default".equals(shipped.source(key)) && key.defaultValue() != null) {
                assertEquals(key.parser().apply(key.defaultValue()), all.find(key).orElseThrow(),
                        key.name() + " is commented out in " + SAMPLE + " with a value other than its default");
            }
        }
    }

    private static ConfigValues load(Path file) {
        Providers providers = Providers.discover();
        return new ConfigLoader(ConfigLoader.withCoreKeys(providers.configKeys()), providers.openPrefixes(), Map.of(),
                new Properties()).load(file);
    }
}
