package io.mqttgw.core.config;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The README's configuration reference names every key core declares, with its default (deploy tests the sample). */
class ConfigReferenceTest {
    private static Path repoFile(String name) {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.exists(p.resolve("mvnw"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new AssertionError("repository root (with mvnw) not found above " + Path.of("").toAbsolutePath());
        }
        return p.resolve(name);
    }

    @Test
    void readmeDocumentsEveryKeyWithItsDefault() throws Exception {
        String readme = Files.readString(repoFile("README.md"));
        List<String> missing = new ArrayList<>();
        for (ConfigKey<?> key : CoreConfigKeys.ALL) {
            String row = "| `" + key.name() + "` | " + (key.defaultValue() == null || key.defaultValue().isEmpty()
                    ? "" : "`" + key.defaultValue() + "`");
            if (!readme.contains(row)) {
                missing.add(key.name());
            }
        }
        assertTrue(missing.isEmpty(), "README.md configuration reference lacks (or has a wrong default for): "
                + missing);
    }
}
