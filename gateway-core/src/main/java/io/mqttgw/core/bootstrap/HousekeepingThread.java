package io.mqttgw.core.bootstrap;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The node's one {@code gateway-housekeeping} thread: a scheduler and nothing else. Each job on it has an owner class
 * that schedules it and holds its state:
 * <ul>
 *   <li>config reloads (an operator's, SIGHUP's, the config file watch's): {@link NodeReloads} with
 *       {@link ConfigFileWatcher};</li>
 *   <li>the TLS listener's certificate and CRL files: {@link io.mqttgw.core.tls.SslContextStore#watch}, and the
 *       paced closing of the connections a reloaded CRL revokes: {@link io.mqttgw.core.tls.RevokedConnectionSweep};
 *       </li>
 *   <li>the session-ticket keys: {@link SessionTicketKeys} with {@link io.mqttgw.core.tls.TicketKeyRotation};</li>
 *   <li>the slices of a downlink broadcast, paced at {@code downlink.broadcast-rate}:
 *       {@link io.mqttgw.core.mqtt.downlink.DownlinkDispatcher}.</li>
 * </ul>
 * One thread and not one per job: each job runs briefly and seldom, a thread costs its stack, and on one thread the
 * jobs run one at a time (a reload never overlaps another). None of them is device work: that stays on the event
 * loops, to which a job hands what concerns a device.
 *
 * <p>Made by the thread that starts the node; shut down (queued work dropped) by the one that stops it, once the event
 * loops have stopped.
 */
final class HousekeepingThread implements AutoCloseable {
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "gateway-housekeeping");
        t.setDaemon(true);
        return t;
    });

    /** Where the owners schedule their jobs. */
    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
