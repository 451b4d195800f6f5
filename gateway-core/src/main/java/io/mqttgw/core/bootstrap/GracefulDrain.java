package io.mqttgw.core.bootstrap;

import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.registry.ChannelRegistry;
import io.netty.channel.Channel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node leaving on purpose, in two steps. {@link #announce}: {@code /health/ready} answers 503 while the ports still
 * accept devices for {@code shutdown.ready-grace}, because a balancer learns of a node leaving only from its health
 * checks and until they fail it still sends devices here, which a closed port would refuse; then the ports close.
 * {@link #closeSessions}: the devices are closed in slices of 10 ms at {@code shutdown.close-rate}, so they come back
 * through the balancer at a pace the other nodes' handshake budget takes, not all at once. Runs on the thread that
 * stops the node, which it blocks for the grace and the pacing (never an event loop: each close is handed to the
 * channel's own loop); {@link #leaving} is read by readiness on the admin thread.
 */
final class GracefulDrain {
    private static final Logger LOG = LoggerFactory.getLogger(GracefulDrain.class);
    private static final long SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /** Sleeps on the draining thread; a test passes one that only advances its clock. */
    interface Sleeper {
        void sleepNanos(long nanos) throws InterruptedException;
    }

    private final String nodeId;
    private final GatewayConfig.Shutdown config;
    private final ChannelRegistry registry;
    private final DeviceListeners listeners;
    private final LongSupplier nanoTime;
    private final Sleeper sleeper;
    private volatile boolean leaving;

    GracefulDrain(String nodeId, GatewayConfig.Shutdown config, ChannelRegistry registry, DeviceListeners listeners) {
        this(nodeId, config, registry, listeners, System::nanoTime, TimeUnit.NANOSECONDS::sleep);
    }

    GracefulDrain(String nodeId, GatewayConfig.Shutdown config, ChannelRegistry registry, DeviceListeners listeners,
                  LongSupplier nanoTime, Sleeper sleeper) {
        this.nodeId = nodeId;
        this.config = config;
        this.registry = registry;
        this.listeners = listeners;
        this.nanoTime = nanoTime;
        this.sleeper = sleeper;
    }

    /** Whether the node has started leaving: {@code /health/ready} answers 503 from then on. */
    boolean leaving() {
        return leaving;
    }

    /**
     * Turns readiness off, keeps the ports open for the grace (overload no longer opens or closes them), then closes
     * them for good. Without open ports (none configured, or closed for overload) there is nobody to wait for.
     */
    void announce() {
        leaving = true;
        if (listeners == null) {
            return;
        }
        listeners.freeze();
        Duration grace = config.readyGrace();
        if (listeners.accepting() && !grace.isZero()) {
            LOG.info("node {} leaving: /health/ready answers 503, listeners stay open for {} so the balancer takes "
                    + "the node out first", nodeId, grace);
            try {
                sleeper.sleepNanos(grace.toNanos());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        listeners.closeForGood();
    }

    /**
     * Closes this node's sessions at the configured rate until {@code deadline} ({@link System#nanoTime}); those left
     * then are closed at once.
     */
    void closeSessions(long deadline) {
        List<Channel> open = new ArrayList<>((int) Math.min(Integer.MAX_VALUE, registry.size()));
        registry.forEach(open::add);
        LOG.info("node {}: {} sessions to close at {}/s", nodeId, open.size(), config.closeRatePerSecond());
        int perSlice = Math.max(1, config.closeRatePerSecond() / 100);
        int i = 0;
        while (i < open.size() && nanoTime.getAsLong() < deadline) {
            long sliceEnd = nanoTime.getAsLong() + SLICE_NANOS;
            for (int n = 0; n < perSlice && i < open.size(); n++, i++) {
                close(open.get(i));
            }
            long sleep = sliceEnd - nanoTime.getAsLong();
            if (sleep > 0 && i < open.size()) {
                try {
                    sleeper.sleepNanos(sleep);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        for (; i < open.size(); i++) {
            close(open.get(i));
        }
    }

    private static void close(Channel ch) {
        ch.eventLoop().execute(() -> DeviceDisconnector.close(ch, DisconnectReason.SHUTDOWN));
    }
}
