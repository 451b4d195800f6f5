package io.mqttgw.core.connection;

import io.netty.channel.Channel;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.concurrent.TimeUnit;

/**
 * Keepalive of the sessions of one event loop (MQTT-3.1.2-24): a session that sent no packet for one and a half
 * keepalive periods is closed, counted as {@code keepalive_timeout}. One timer wheel per event loop instead of a
 * handler and a scheduled task per connection (about 240 B of heap per idle connection): a session costs
 * the fields of its {@link KeepAliveEntry} (time of its last packet, its timeout, two links) and nothing else; a
 * packet only writes the time. The wheel is a ring of slots, one per tick; a session sits in the slot of its
 * deadline as it was when last placed, and when that slot comes up the real deadline (last packet + timeout) is
 * checked: passed means close, else the session moves to the slot of the later deadline. While the gateway itself has
 * paused reading the connection (its sink is slow), the device's packets wait unread, so silence is not the device's
 * fault and the check is put off by a whole timeout, as often as needed. A closed channel leaves its slot at once
 * ({@link #unwatch}). The wheel ticks only while it holds sessions; ticks follow the loop's clock, so a late tick
 * catches up on the slots it missed. Event loop only: each loop thread has its own wheel.
 */
public final class KeepAliveWheel {
    static final long TICK_MILLIS = 250;
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS);
    /** 256 s per turn; a later deadline waits in its slot for further turns (checked, then placed again). */
    private static final int SLOTS = 1024;
    private static final FastThreadLocal<KeepAliveWheel> WHEELS = new FastThreadLocal<>();

    private final KeepAliveEntry[] heads = new KeepAliveEntry[SLOTS];
    private final EventExecutor loop;
    private final long origin;
    private final Runnable advance = this::advance;
    /** The last tick whose slot was processed. */
    private long processed;
    private int sessions;
    private boolean ticking;

    private KeepAliveWheel(EventExecutor loop) {
        this.loop = loop;
        this.origin = loop.ticker().nanoTime();
    }

    /**
     * The wheel of {@code loop}, which must be the calling thread's. A thread runs one event loop in production; a
     * test thread may run several embedded ones in turn, each getting a fresh wheel.
     */
    static KeepAliveWheel of(EventExecutor loop) {
        KeepAliveWheel wheel = WHEELS.get();
        if (wheel == null || wheel.loop != loop) {
            wheel = new KeepAliveWheel(loop);
            WHEELS.set(wheel);
        }
        return wheel;
    }

    /** Starts the keepalive check of {@code channel}'s session; on its event loop. 0 seconds: no check. */
    public static void watch(Channel channel, int keepAliveSeconds) {
        if (keepAliveSeconds > 0) {
            of(channel.eventLoop()).add(channel, ConnectionContext.of(channel), keepAliveSeconds * 1500L);
        }
    }

    /** Ends the keepalive check of a closed channel's session, if it had one; on its event loop. */
    public static void unwatch(Channel channel) {
        ConnectionContext context = ConnectionContext.of(channel);
        if (context != null && context.inWheel()) {
            of(channel.eventLoop()).remove(context);
        }
    }

    /** Whether the channel's session is in a wheel (for tests). */
    public static boolean watched(Channel channel) {
        return ConnectionContext.of(channel).inWheel();
    }

    private long now() {
        return loop.ticker().nanoTime();
    }

    private void add(Channel channel, KeepAliveEntry entry, long timeoutMillis) {
        if (entry.inWheel()) {
            remove(entry);
        }
        long now = now();
        boolean start = !ticking;
        if (start) {
            // ticks count from the wheel's origin; the slot of the tick now running counts as processed
            processed = (now - origin) / TICK_NANOS;
            ticking = true;
        }
        entry.watch(channel, TimeUnit.MILLISECONDS.toNanos(timeoutMillis), now);
        sessions++;
        place(entry, entry.deadline());
        if (start) {
            scheduleNextTick(now);
        }
    }

    private void remove(KeepAliveEntry entry) {
        int slot = entry.slot();
        KeepAliveEntry next = entry.next();
        if (entry.unlink()) {
            heads[slot] = next;
        }
        entry.unwatch();
        sessions--;
    }

    /** Links {@code entry} into the slot of the first tick at or after {@code deadline} (at least the next one). */
    private void place(KeepAliveEntry entry, long deadline) {
        long tick = Math.max(processed + 1, (deadline - origin + TICK_NANOS - 1) / TICK_NANOS);
        int slot = (int) (tick % SLOTS);
        entry.linkBefore(heads[slot], slot);
        heads[slot] = entry;
    }

    private void advance() {
        long now = now();
        long due = (now - origin) / TICK_NANOS;
        // after a stall longer than a turn, one pass over every slot checks every session
        long from = Math.max(processed + 1, due - SLOTS + 1);
        for (long tick = from; tick <= due; tick++) {
            processed = tick;
            int slot = (int) (tick % SLOTS);
            KeepAliveEntry entry = heads[slot];
            heads[slot] = null;
            while (entry != null) {
                KeepAliveEntry next = entry.next();
                entry.detach();
                check(entry, now);
                entry = next;
            }
        }
        processed = due;
        if (sessions > 0) {
            scheduleNextTick(now);
        } else {
            ticking = false;
        }
    }

    private void check(KeepAliveEntry entry, long now) {
        Channel channel = entry.watchedChannel();
        if (!channel.isActive()) {
            entry.unwatch();
            sessions--;
            return;
        }
        long deadline = entry.deadline();
        if (now - deadline < 0) {
            place(entry, deadline);
        } else if (!channel.config().isAutoRead()) {
            // reading paused by the gateway: the device's packets wait unread; look again a whole timeout later
            place(entry, now + entry.keepAliveTimeoutNanos());
        } else {
            entry.unwatch();
            sessions--;
            DeviceDisconnector.close(channel, DisconnectReason.KEEPALIVE_TIMEOUT);
        }
    }

    private void scheduleNextTick(long now) {
        // at the next tick boundary, so a deadline on a boundary is checked on time
        long next = origin + (processed + 1) * TICK_NANOS;
        loop.schedule(advance, Math.max(0, next - now), TimeUnit.NANOSECONDS);
    }
}
