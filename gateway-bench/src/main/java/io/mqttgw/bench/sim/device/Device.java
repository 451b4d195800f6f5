package io.mqttgw.bench.sim.device;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.concurrent.ScheduledFuture;

/**
 * One simulated device: about a hundred bytes of state, and an {@link Outbox} of a few dozen more once it sends
 * QoS 1, confined to its event loop ({@link #loop}); the only cross-thread field is {@link #certificateRequested},
 * written by the TLS key manager before the handshake completes on that loop. Its single timer (traffic, PINGREQ or
 * reconnect) runs {@link #run} on the loop.
 */
public final class Device implements Runnable {
    enum State { IDLE, QUEUED, CONNECTING, CONNECTED, WAITING }

    final int index;
    final String clientId;
    final EventLoop loop;
    private final DeviceFleet fleet;

    State state = State.IDLE;
    Channel channel;
    ScheduledFuture<?> timer;
    int attempt;
    long connectStartNanos;
    boolean failureCounted;
    int failuresSinceConnack;
    boolean dropping;
    boolean everConnected;
    volatile boolean certificateRequested;
    int nextPacketId;
    int pendingPacketId;
    long pendingSentNanos;
    long nextHeartbeat;
    long nextStatus;
    long nextPing;
    /** The node of the current or last attempt (an index into the balancer's nodes). */
    int node;
    /** Immediate retries of this attempt on another node after a refused TCP connect (the balancer's redispatch). */
    int redispatches;
    /** When the connection was lost without the bench closing it; 0 when the device is not waiting to return. */
    long lostAtNanos;
    /** QoS 1 PUBLISHes sent on this connection and not yet acknowledged. */
    int unacked;
    /** QoS 1 PUBLISHes not yet acknowledged, whichever connection sent them; resent after a reconnect. */
    final Outbox outbox = new Outbox();
    /** Numbered payloads: the number of the last QoS 1 PUBLISH this device numbered (they count from 1). */
    int lastSequence;
    /** When the unanswered PINGREQ was sent, or 0. */
    long pingSentNanos;

    Device(int index, String clientId, EventLoop loop, DeviceFleet fleet) {
        this.index = index;
        this.clientId = clientId;
        this.loop = loop;
        this.fleet = fleet;
    }

    /** The next packet id not held by a PUBLISH still waiting for its PUBACK. */
    int nextPacketId() {
        do {
            nextPacketId = nextPacketId >= 65_535 ? 1 : nextPacketId + 1;
        } while (outbox.size() > 0 && outbox.holds(nextPacketId));
        return nextPacketId;
    }

    @Override
    public void run() {
        fleet.onTimer(this);
    }
}
