package io.mqttgw.bench.scripts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every bash script of bin/ parses ({@code bash -n}): the measuring scripts run for tens of minutes before reaching
 * their last lines, and a quote that a comment closes (an apostrophe inside a single-quoted jq program) is otherwise
 * found only then.
 */
class BenchScriptsSyntaxTest {
    private static final Path BIN = Path.of("bin");

    @Test
    void everyBashScriptParses() throws IOException, InterruptedException {
        List<Path> scripts;
        try (Stream<Path> files = Files.list(BIN)) {
            scripts = files.filter(BenchScriptsSyntaxTest::isBash).sorted().toList();
        }
        assertFalse(scripts.isEmpty(), "no bash script in " + BIN.toAbsolutePath());
        assertTrue(scripts.contains(BIN.resolve("uplink-vs-mosquitto.sh")), scripts.toString());
        for (Path script : scripts) {
            Process p = new ProcessBuilder("bash", "-n", script.toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "bash -n " + script + " did not end");
            assertEquals(0, p.exitValue(), script + ": " + out);
        }
    }

    /** A file of bin/ run or sourced by bash: named *.sh, or with a bash shebang. */
    private static boolean isBash(Path file) {
        if (!Files.isRegularFile(file)) {
            return false;
        }
        if (file.getFileName().toString().endsWith(".sh")) {
            return true;
        }
        try {
            String first = Files.readString(file, StandardCharsets.ISO_8859_1).lines().findFirst().orElse("");
            return first.startsWith("#!") && first.contains("bash");
        } catch (IOException e) {
            return false;
        }
    }
}
