package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The watcher reloads on a change of content only: the same content (rewritten, touched, or a refused one) is not
 * reloaded again, a file briefly missing (a swap) is no change, and a reload that throws does not stop the watching.
 */
class ConfigFileWatcherTest {
    @TempDir
    Path dir;

    @Test
    void reloadsOncePerNewContent() throws Exception {
        Path file = Files.writeString(dir.resolve("gateway.yaml"), "log:\n  level: info\n");
        AtomicInteger reloads = new AtomicInteger();
        ConfigFileWatcher watcher = new ConfigFileWatcher(file, reloads::incrementAndGet);

        watcher.check();
        assertEquals(0, reloads.get(), "the content the node started with");

        Files.writeString(file, "log:\n  level: info\n");
        Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis() + 5000));
        watcher.check();
        assertEquals(0, reloads.get(), "rewritten and touched, same content");

        Files.writeString(file, "log:\n  level: debug\n");
        watcher.check();
        watcher.check();
        assertEquals(1, reloads.get(), "one reload per new content, applied or refused");

        Files.delete(file);
        watcher.check();
        Files.writeString(file, "log:\n  level: debug\n");
        watcher.check();
        assertEquals(1, reloads.get(), "missing for a moment, then the same content: no change");
    }

    @Test
    void keepsWatchingAfterAReloadThatThrows() throws Exception {
        Path file = Files.writeString(dir.resolve("gateway.yaml"), "a: 1\n");
        AtomicInteger calls = new AtomicInteger();
        ConfigFileWatcher watcher = new ConfigFileWatcher(file, () -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("a provider failed to apply");
            }
        });
        Files.writeString(file, "a: 2\n");
        watcher.check();
        Files.writeString(file, "a: 3\n");
        watcher.check();
        assertEquals(2, calls.get());
    }
}
