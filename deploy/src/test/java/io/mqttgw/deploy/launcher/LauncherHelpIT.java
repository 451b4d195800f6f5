package io.mqttgw.deploy.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every verb of the packaged launcher answers {@code --help} with its own usage and status 0. */
class LauncherHelpIT {
    private static final Path LAUNCHER = Path.of("target", "mqtt-gateway", "bin", "gateway");

    @ParameterizedTest
    @ValueSource(strings = {"run", "check-config", "pki", "jvm-options", "demo", "--version", "clients"})
    void everyVerbAnswersHelpWithItsUsage(String verb) throws IOException, InterruptedException {
        assertTrue(Files.isExecutable(LAUNCHER), "the distribution is built into " + LAUNCHER);
        Process p = new ProcessBuilder(LAUNCHER.toString(), verb, "--help").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), verb + " --help did not end");
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.toLowerCase(Locale.ROOT).contains("usage: gateway " + verb), out);
    }
}
