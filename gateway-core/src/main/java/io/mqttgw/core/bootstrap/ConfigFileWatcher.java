package io.mqttgw.core.bootstrap;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reloads the config file when its content changes ({@code config.watch-interval}). The content's digest is compared,
 * not modification times or file events: a Kubernetes ConfigMap volume replaces the file by swapping the {@code ..data}
 * symbolic link (the file's own timestamp and inode events never change), and an editor may keep the timestamp. A
 * content that was reloaded once, applied or refused, is not reloaded again until it changes: a refused file is logged
 * once, not at every poll. Runs on the housekeeping thread; its state is that thread's alone.
 */
final class ConfigFileWatcher {
    private static final Logger LOG = LoggerFactory.getLogger(ConfigFileWatcher.class);

    private final Path file;
    private final Runnable reload;
    private byte[] seen;
    private boolean unreadable;

    /** @param reload re-reads and applies the file (the reloader; on the calling, housekeeping thread) */
    ConfigFileWatcher(Path file, Runnable reload) {
        this.file = file;
        this.reload = reload;
        // the content the node started with: a change from here on is what reloads
        this.seen = digest();
    }

    ScheduledFuture<?> start(ScheduledExecutorService housekeeping, Duration interval) {
        long millis = interval.toMillis();
        return housekeeping.scheduleWithFixedDelay(this::check, millis, millis, TimeUnit.MILLISECONDS);
    }

    /** Reloads if the content differs from the last one seen. */
    void check() {
        byte[] now = digest();
        if (now == null || Arrays.equals(now, seen)) {
            return;
        }
        seen = now;
        try {
            reload.run();
        } catch (RuntimeException e) {
            // the housekeeping thread also runs ticket-key rotation and TLS reloads: never let a reload end it
            LOG.error("config reload after a change of {} failed", file, e);
        }
    }

    /**
     * The file's SHA-256, or null while it cannot be read (logged once per outage: a swap in progress, a typo'd path).
     */
    private byte[] digest() {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
            unreadable = false;
            return d;
        } catch (IOException e) {
            if (!unreadable) {
                LOG.warn("cannot read config file {} to check it for changes: {}", file, e.toString());
            }
            unreadable = true;
            return null;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
