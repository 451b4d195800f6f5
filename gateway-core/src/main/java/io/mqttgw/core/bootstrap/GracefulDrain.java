package io.mqttgw.core.bootstrap;

import io.mqttgw.core.admin.OperatorApi;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.registry.ChannelRegistry;
import io.netty.channel.Channel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node leaving on purpose (SIGTERM, {@code POST /drain}), in two steps. {@link #announce}: {@code /health/ready}
 * answers 503 while the ports still accept devices for {@code shutdown.ready-grace}, because a balancer learns of a
 * node leaving only from its health checks and until they fail it still sends devices here, which a closed port would
 * refuse; then the ports close. {@link #closeSessions}: the devices are closed in slices of about 10 ms (one device per
 * slice below 100/s) at {@code shutdown.drain-rate}, so they come back through the balancer at a pace the other nodes'
 * admission budget takes, not all at once; MQTT 5.0 devices are told why (0x8B, or 0x9C with {@code
 * shutdown.server-reference}). {@link #run} does both once, on the calling thread (the shutdown hook's), which it
 * blocks for the grace and the pacing; {@link #start} does it on a thread of its own, {@code gateway-drain}. Never on
 * an event loop: each close is handed to the channel's own loop. {@link #leaving} is read by readiness on the admin
 * thread.
 */
final class GracefulDrain {
    private static final Logger LOG = LoggerFactory.getLogger(GracefulDrain.class);

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
    private final AtomicBoolean started = new AtomicBoolean();
    private final CountDownLatch done = new CountDownLatch(1);
    /** Whether the node exits once drained; set by whoever started the drain. */
    private volatile boolean exitWhenDrained;
    /** When the paced close gives up pacing ({@link System#nanoTime}); set when the grace ends. */
    private volatile long deadline;
    /** The connections {@link #closeSessions} handed to their loops to close; empty before. */
    private volatile List<Channel> drained = List.of();

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
     * Starts the drain on a thread of its own unless it runs already, and answers at once.
     *
     * @param exit      whether the node exits once drained (the first start decides; SIGTERM always exits)
     * @param afterward run on the drain thread once the devices are closed, when {@code exit}
     */
    OperatorApi.DrainReport start(String operator, boolean exit, Runnable afterward) {
        long devices = registry.size();
        boolean first = started.compareAndSet(false, true);
        if (first) {
            // from the answer on: whoever asked may check /health/ready at once
            leaving = true;
            exitWhenDrained = exit;
            LOG.info("node {}: drain requested by {} ({})", nodeId, operator,
                    exit ? "exits once drained" : "stays up, not ready, once drained");
            Thread t = new Thread(() -> {
                drain();
                if (exit) {
                    afterward.run();
                }
            }, "gateway-drain");
            t.setDaemon(true);
            t.start();
        }
        return new OperatorApi.DrainReport(!first, exitWhenDrained, devices, config.readyGrace().toMillis(),
                config.drainRatePerSecond(), config.serverReference());
    }

    /**
     * Drains on the calling thread, or waits until the drain already started has closed the devices.
     *
     * @return whether this call drained (else the drain ran on its own thread, perhaps long before)
     */
    boolean run() {
        if (started.compareAndSet(false, true)) {
            leaving = true;
            exitWhenDrained = true;
            drain();
            return true;
        }
        try {
            done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    /** When the drain stops pacing: the graceful shutdown's deadline for what comes after it too. */
    long deadline() {
        return deadline;
    }

    private void drain() {
        try {
            announce();
            deadline = nanoTime.getAsLong() + config.timeout().toNanos();
            closeSessions(deadline);
        } finally {
            done.countDown();
        }
    }

    /**
     * Turns readiness off, keeps the ports open for the grace (overload no longer opens or closes them), then closes
     * them for good. Without open ports (none configured, or closed for overload) there is nobody to wait for.
     */
    private void announce() {
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
     * Closes this node's sessions at the configured rate until {@code until} ({@link System#nanoTime}); those left
     * then are closed at once.
     */
    void closeSessions(long until) {
        List<Channel> open = new ArrayList<>((int) Math.min(Integer.MAX_VALUE, registry.size()));
        registry.forEach(open::add);
        drained = open;
        LOG.info("node {}: {} sessions to close at {}/s{}", nodeId, open.size(), config.drainRatePerSecond(),
                config.serverReference() == null ? "" : ", MQTT 5.0 devices sent to " + config.serverReference());
        int rate = config.drainRatePerSecond();
        int perSlice = Math.max(1, rate / 100);
        // a slice lasts what its devices take at the rate: 10 ms at multiples of 100/s, longer below 100/s
        long sliceNanos = TimeUnit.SECONDS.toNanos(perSlice) / rate;
        int i = 0;
        while (i < open.size() && nanoTime.getAsLong() < until) {
            long sliceEnd = nanoTime.getAsLong() + sliceNanos;
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

    /**
     * The drain's part of the node's close: drains on the calling thread (or waits for the drain already started),
     * then waits until the drained devices are closed; returns the deadline ({@link System#nanoTime}) of the rest of
     * the shutdown.
     */
    long finishBeforeClose() {
        // devices still connected keep their downlink until they are closed; after a drain of its own (POST /drain,
        // perhaps long ago) the flush that follows gets the whole timeout
        long deadline = run() ? deadline() : System.nanoTime() + config.timeout().toNanos();
        // the drain only handed each close to its channel's loop: shutting the loops down closes what is left
        // untold, so they get the time a device that owes acknowledgements may take (and the timeout's rest)
        if (!awaitClosed(Math.max(deadline, System.nanoTime()
                + TimeUnit.MILLISECONDS.toNanos(DeviceDisconnector.OWED_ACKS_WAIT_MILLIS + 1_000)))) {
            LOG.warn("node {}: drained devices not all closed before the shutdown went on", nodeId);
        }
        return deadline;
    }

    /**
     * Waits until the connections the drain closed are closed, or until {@code until} ({@link System#nanoTime}). A
     * close is only handed to the channel's loop, and it writes the DISCONNECT and TLS close_notify there; an event
     * loop shut down before would close the socket without them (the device would see a lost connection, not why).
     *
     * @return whether all of them are closed
     */
    boolean awaitClosed(long until) {
        for (Channel ch : drained) {
            long left = until - nanoTime.getAsLong();
            if (left <= 0 || !ch.closeFuture().awaitUninterruptibly(left, TimeUnit.NANOSECONDS)) {
                return false;
            }
        }
        return true;
    }

    private void close(Channel ch) {
        String reference = config.serverReference();
        ch.eventLoop().execute(() -> DeviceDisconnector.drain(ch, reference));
    }
}
