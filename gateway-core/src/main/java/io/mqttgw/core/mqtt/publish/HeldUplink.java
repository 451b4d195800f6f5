package io.mqttgw.core.mqtt.publish;

import io.mqttgw.core.spi.RoomWait;
import io.mqttgw.core.spi.UplinkSink;
import io.netty.channel.Channel;
import java.util.concurrent.RejectedExecutionException;

/**
 * A connection's wait for room in the sink after a refusal for capacity: told by the sink's thread, it hops to the
 * channel's event loop and hands the held messages to the sink again ({@link UplinkDelivery#sendHeld}). One per
 * connection, made on its first such refusal; registered at most once at a time ({@link #registered}). Event loop
 * only, apart from {@link #room}.
 */
final class HeldUplink extends RoomWait implements Runnable {
    private final Channel channel;
    private final UplinkAcks acks;
    private final UplinkDelivery delivery;
    private final UplinkSink sink;
    /** Queued with the sink and not yet told. */
    boolean registered;

    HeldUplink(Channel channel, UplinkAcks acks, UplinkDelivery delivery, UplinkSink sink) {
        this.channel = channel;
        this.acks = acks;
        this.delivery = delivery;
        this.sink = sink;
    }

    @Override
    protected void room() {
        try {
            channel.eventLoop().execute(this);
        } catch (RejectedExecutionException e) {
            // the loop is shutting down and its channels with it: nothing left to send
        }
    }

    @Override
    public void run() {
        registered = false;
        delivery.sendHeld(channel, acks, this);
    }

    /** The sink is done with this wait (sent again, or the connection closed). */
    void end() {
        registered = false;
        sink.endWait(this);
    }
}
