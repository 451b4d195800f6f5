package io.mqttgw.core.bootstrap;

import io.mqttgw.core.admin.OperatorApi;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Where the node's config reloads run: an operator's, SIGHUP's and the file watch's, all on the housekeeping thread,
 * so one reload at a time. A node started without a config file has nothing to reload.
 *
 * <p>Made by the thread that starts the node; {@link #reload} is called from any thread and returns at once.
 */
final class NodeReloads {
    private final ConfigReloader reloader;
    private final ConfigReloader.Source source;
    private final ScheduledExecutorService background;

    /** @param reloader the reloader of the node's config file, or null when it was started without one */
    NodeReloads(ConfigReloader reloader, ConfigReloader.Source source, ScheduledExecutorService background) {
        this.reloader = reloader;
        this.source = source;
        this.background = background;
    }

    /** Whether the node has a config file to re-read. */
    boolean available() {
        return reloader != null;
    }

    /** Re-reads the file now and then whenever it changes, checked every {@code interval} (zero: never). */
    void watch(Duration interval) {
        if (reloader != null && !interval.isZero()) {
            new ConfigFileWatcher(source.file(), () -> reloader.reload("file-watch")).start(background, interval);
        }
    }

    /** Re-reads the file for {@code who}; completes with what happened. Fails when there is no file. */
    CompletableFuture<OperatorApi.ReloadReport> reload(String who) {
        if (reloader == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("started without a config file"));
        }
        return CompletableFuture.supplyAsync(() -> reloader.reload(who), background);
    }
}
