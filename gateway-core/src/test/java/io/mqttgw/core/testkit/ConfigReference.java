package io.mqttgw.core.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.config.ConfigKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Checks that the README's configuration reference has a row for each key, with its default. */
public final class ConfigReference {
    private ConfigReference() {
    }

    /** A file of the repository, found by walking up from the working directory to the one with mvnw. */
    public static Path repoFile(String name) {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.exists(p.resolve("mvnw"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new AssertionError("repository root (with mvnw) not found above " + Path.of("").toAbsolutePath());
        }
        return p.resolve(name);
    }

    public static void assertReadmeDocuments(List<ConfigKey<?>> keys) throws IOException {
        String readme = Files.readString(repoFile("README.md"));
        List<String> missing = new ArrayList<>();
        for (ConfigKey<?> key : keys) {
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
