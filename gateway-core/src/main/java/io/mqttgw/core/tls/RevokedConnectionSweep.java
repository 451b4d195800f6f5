package io.mqttgw.core.tls;

import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.identity.RevocationPath;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DeviceDisconnector;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.registry.ChannelRegistry;
import io.netty.channel.Channel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes the open connections whose certificates a reloaded CRL file revokes: without it a stolen device stays
 * connected until it reconnects, however long that is. After each reload ({@link SslContextStore#onRevocationReload})
 * the registry is walked on the reloading thread, each session's {@link RevocationPath} looked up in the new lists
 * (hash lookups; the path is written before the session is registered and never after, so reading it there is
 * safe, as {@link CertificateExpiryMeter} reads the expiry); the registry's shards are walked without a lock. The
 * revoked ones are then closed at most {@code perSecond} a second, paced on {@code scheduler}, each on its own event
 * loop, through {@link DeviceDisconnector} with {@link DisconnectReason#CERTIFICATE_REVOKED} (counted, MQTT 5.0
 * DISCONNECT 0x87) and an event-log line: a CRL that revokes a whole production line must not make its devices
 * reconnect all at once. A reload during a sweep replaces it (its lists are the current truth).
 *
 * <p>A connection whose handshake passed under the old lists but whose CONNECT was still being decided at the reload
 * is not registered yet, so the first walk misses it; the walk is therefore made once more {@code settle} later (the
 * longest a CONNECT can take to be decided), unless another reload came meanwhile. Thread-safe.
 */
public final class RevokedConnectionSweep implements Consumer<RevocationLists> {
    private static final Logger LOG = LoggerFactory.getLogger(RevokedConnectionSweep.class);
    /** Closes are handed to the event loops in batches this often at most: pacing finer than that buys nothing. */
    private static final long TICK_MILLIS = 100;

    private final ChannelRegistry registry;
    private final EventLog events;
    private final ScheduledExecutorService scheduler;
    private final int perSecond;
    private final long settleMillis;
    /** The sweep under way, or null. Guarded by {@code this}. */
    private Sweep running;
    /** The lists of the latest reload. Guarded by {@code this}. */
    private RevocationLists latest;

    /**
     * @param settle how long after a reload the registry is walked again: at least the longest a connection takes
     *               from its handshake to its registration (connect timeout plus authentication timeout)
     */
    public RevokedConnectionSweep(ChannelRegistry registry, EventLog events, ScheduledExecutorService scheduler,
                                  int perSecond, Duration settle) {
        if (perSecond < 1) {
            throw new IllegalArgumentException("perSecond must be positive: " + perSecond);
        }
        this.registry = registry;
        this.events = events;
        this.scheduler = scheduler;
        this.perSecond = perSecond;
        this.settleMillis = settle.toMillis();
    }

    /** Finds the connections {@code lists} revokes and starts closing them; returns at once. */
    @Override
    public void accept(RevocationLists lists) {
        synchronized (this) {
            latest = lists;
        }
        sweep(lists);
        scheduler.schedule(() -> {
            synchronized (this) {
                if (latest != lists) {
                    return;
                }
            }
            sweep(lists);
        }, settleMillis, TimeUnit.MILLISECONDS);
    }

    private void sweep(RevocationLists lists) {
        List<Channel> revoked = new ArrayList<>();
        registry.forEach(channel -> {
            ConnectionContext context = ConnectionContext.of(channel);
            RevocationPath path = context == null ? null : context.revocation();
            if (path != null && lists.revokedLink(path) >= 0) {
                revoked.add(channel);
            }
        });
        synchronized (this) {
            if (latest != lists) {
                // a newer reload's walk has taken over
                return;
            }
            if (running != null) {
                running.stop();
                running = null;
            }
            if (revoked.isEmpty()) {
                return;
            }
            LOG.info("the reloaded CRLs revoke {} connected device(s): disconnecting them, at most {} a second "
                    + "(listener.tls.crl-disconnect-rate)", revoked.size(), perSecond);
            running = new Sweep(revoked, lists);
            running.start();
        }
    }

    /** Connections the current sweep has still to close (0 when none runs). */
    public synchronized int pending() {
        return running == null ? 0 : running.remaining();
    }

    /** One reload's closes, handed out per tick. */
    private final class Sweep implements Runnable {
        private final List<Channel> channels;
        private final RevocationLists lists;
        private final int perTick;
        private int next;
        private ScheduledFuture<?> task;

        Sweep(List<Channel> channels, RevocationLists lists) {
            this.channels = channels;
            this.lists = lists;
            this.perTick = (int) Math.max(1, perSecond * TICK_MILLIS / 1000);
        }

        /** Holds the sweep's lock so that the first tick, which may start at once, sees {@code task} set. */
        synchronized void start() {
            long period = Math.max(1, perTick * 1000L / perSecond);
            task = scheduler.scheduleAtFixedRate(this, 0, period, TimeUnit.MILLISECONDS);
        }

        synchronized void stop() {
            task.cancel(false);
        }

        synchronized int remaining() {
            return channels.size() - next;
        }

        @Override
        public void run() {
            synchronized (this) {
                int end = Math.min(channels.size(), next + perTick);
                for (; next < end; next++) {
                    Channel channel = channels.get(next);
                    channel.eventLoop().execute(() -> close(channel, lists));
                }
                if (next < channels.size()) {
                    return;
                }
            }
            synchronized (RevokedConnectionSweep.this) {
                if (running == this) {
                    running = null;
                }
            }
            stop();
        }
    }

    /** On the channel's event loop: closes it unless it already closes for another reason. */
    private void close(Channel channel, RevocationLists lists) {
        ConnectionContext context = ConnectionContext.of(channel);
        if (!channel.isActive() || context.closeReason() != null) {
            return;
        }
        RevocationPath path = context.revocation();
        int link = lists.revokedLink(path);
        events.certificateRevoked(context.clientId(), context.remoteAddress(), path.issuer(link),
                path.serial(link).toString(16));
        DeviceDisconnector.close(channel, DisconnectReason.CERTIFICATE_REVOKED);
    }
}
