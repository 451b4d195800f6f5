package io.mqttgw.core.connection;

import io.netty.channel.Channel;

/**
 * A connection's place in its event loop's {@link KeepAliveWheel}: the channel while it is watched, the loop-clock
 * time of its last packet, its timeout, and the links of the wheel slot it sits in. The base of
 * {@link ConnectionContext} rather than an object of its own, so keepalive costs a connection a few fields and no
 * object (an intrusive list, as Netty's scheduled tasks keep their own queue index). Only the wheel moves the links.
 * Event loop only.
 */
public abstract class KeepAliveEntry {
    private Channel watchedChannel;
    private long lastPacketNanos;
    private long timeoutNanos;
    /** The slot it sits in; -1: in none. */
    private int slot = -1;
    private KeepAliveEntry prev;
    private KeepAliveEntry next;

    KeepAliveEntry() {
    }

    /** The keepalive timeout the wheel enforces (1.5 times the device's keepalive), set when it first watches. */
    public final long keepAliveTimeoutNanos() {
        return timeoutNanos;
    }

    /** A whole packet arrived at {@code nanos} (the event loop's clock): the keepalive period starts again. */
    public final void packetRead(long nanos) {
        lastPacketNanos = nanos;
    }

    /** The wheel starts watching {@code channel} at {@code now}. */
    final void watch(Channel channel, long timeout, long now) {
        watchedChannel = channel;
        timeoutNanos = timeout;
        lastPacketNanos = now;
    }

    /** The channel while the wheel watches it, else null. */
    final Channel watchedChannel() {
        return watchedChannel;
    }

    final void unwatch() {
        watchedChannel = null;
    }

    /** When the device's silence becomes a keepalive timeout, on the loop's clock. */
    final long deadline() {
        return lastPacketNanos + timeoutNanos;
    }

    final boolean inWheel() {
        return slot >= 0;
    }

    final int slot() {
        return slot;
    }

    final KeepAliveEntry next() {
        return next;
    }

    /** Links this entry in front of {@code head}, the first of slot {@code index} (or null). */
    final void linkBefore(KeepAliveEntry head, int index) {
        prev = null;
        next = head;
        if (head != null) {
            head.prev = this;
        }
        slot = index;
    }

    /** Takes this entry out of its slot's list; true if it was the first, so the slot's head is now its next. */
    final boolean unlink() {
        boolean first = prev == null;
        if (prev != null) {
            prev.next = next;
        }
        if (next != null) {
            next.prev = prev;
        }
        detach();
        return first;
    }

    /** Forgets the links (its whole slot is being emptied). */
    final void detach() {
        prev = null;
        next = null;
        slot = -1;
    }
}
