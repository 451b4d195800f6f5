package io.mqttgw.core.testkit;

import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.spi.UplinkSink;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An uplink sink the test completes by hand, to see what the gateway does before and after the sink acknowledges.
 * {@code uplink.sink: controlled}; the instance a gateway built is {@link #of(Gateway)}, so tests that run gateways
 * side by side each hold their own.
 */
public final class ControlledSink implements UplinkSink {
    /** A message the gateway handed over, with the stage the test completes. */
    public record Pending(UplinkMessage message, CompletableFuture<Void> done) {
    }

    private final BlockingQueue<Pending> received = new LinkedBlockingQueue<>();

    ControlledSink() {
    }

    /** The sink {@code gateway} hands its uplink to; it must have been started with {@code uplink.sink: controlled}. */
    public static ControlledSink of(Gateway gateway) {
        if (!(gateway.sink() instanceof ControlledSink sink)) {
            throw new IllegalArgumentException("the gateway runs uplink.sink " + gateway.config().uplinkSink()
                    + ", not controlled");
        }
        return sink;
    }

    @Override
    public CompletionStage<Void> send(UplinkMessage message) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        received.add(new Pending(message, done));
        return done;
    }

    /** The next message handed to the sink, waiting up to 5 seconds. */
    public Pending next() throws InterruptedException {
        return next(5);
    }

    /** The next message handed to the sink, waiting up to {@code seconds} (e.g. for a device to reconnect). */
    public Pending next(long seconds) throws InterruptedException {
        Pending p = received.poll(seconds, TimeUnit.SECONDS);
        if (p == null) {
            throw new AssertionError("the gateway handed nothing to the sink within " + seconds + " s");
        }
        return p;
    }

    public int waiting() {
        return received.size();
    }
}
