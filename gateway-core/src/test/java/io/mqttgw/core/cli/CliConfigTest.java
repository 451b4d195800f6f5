package io.mqttgw.core.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Model.OptionSpec;

class CliConfigTest {
    @TempDir
    Path dir;

    private static String value(CliConfig config, String option) {
        return config.defaultValue(OptionSpec.builder(option).type(String.class).build());
    }

    @Test
    void theEnvironmentWinsOverTheFileAndRelativePathsAreFromTheFilesDirectory() throws Exception {
        Path file = Files.writeString(Files.createDirectories(dir.resolve("ops")).resolve("cli.properties"),
                "admin-url = https://10.0.0.1:9443\ncert = certs/operator.pem\nkey=/abs/operator.key\n");
        CliConfig config = CliConfig.of(new String[] {"list", "--cli-config", file.toString()},
                Map.of("GATEWAY_ADMIN_URL", "https://from-env:9443"));
        assertEquals("https://from-env:9443", value(config, "--admin-url"));
        assertEquals(dir.resolve("ops").resolve("certs").resolve("operator.pem").toAbsolutePath().toString(),
                value(config, "--cert"));
        assertEquals("/abs/operator.key", value(config, "--key"));
        assertNull(value(config, "--ca-file"), "neither set: the option's own default");
        assertNull(value(config, "--prefix"), "not a connection option");
    }

    @Test
    void theFileMayBeNamedByTheEnvironmentOrWithAnEqualsSign() throws Exception {
        Path file = Files.writeString(dir.resolve("a.properties"), "timeout=7\n");
        assertEquals("7", value(CliConfig.of(new String[0], Map.of("GATEWAY_CLI_CONFIG", file.toString())),
                "--timeout"));
        assertEquals("7", value(CliConfig.of(new String[] {"--cli-config=" + file}, Map.of()), "--timeout"));
    }

    @Test
    void refusesAnUnknownKeyOrAMissingFileNamingIt() throws Exception {
        Path typo = Files.writeString(dir.resolve("typo.properties"), "certificate = x.pem\n");
        ClientsCommand.Failure unknown = assertThrows(ClientsCommand.Failure.class,
                () -> CliConfig.of(new String[] {"--cli-config", typo.toString()}, Map.of()));
        assertEquals(ClientsCommand.USAGE, unknown.status);
        assertTrue(unknown.getMessage().contains("unknown key certificate"), unknown.getMessage());
        ClientsCommand.Failure missing = assertThrows(ClientsCommand.Failure.class,
                () -> CliConfig.of(new String[] {"--cli-config", dir.resolve("none").toString()}, Map.of()));
        assertTrue(missing.getMessage().contains("cannot read --cli-config"), missing.getMessage());
    }
}
