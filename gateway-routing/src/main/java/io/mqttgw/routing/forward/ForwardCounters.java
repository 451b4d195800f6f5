package io.mqttgw.routing.forward;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** The counts of forwarded-operation messages, one meter with a {@code result} tag; shared by both sides. */
final class ForwardCounters {
    final Counter answered;
    final Counter refusedBusy;
    final Counter malformed;
    final Counter late;
    final Counter unreachable;

    ForwardCounters(MeterRegistry meters) {
        this.answered = counter(meters, "answered");
        this.refusedBusy = counter(meters, "busy");
        this.malformed = counter(meters, "malformed");
        this.late = counter(meters, "late");
        this.unreachable = counter(meters, "unreachable");
    }

    private static Counter counter(MeterRegistry meters, String result) {
        return Counter.builder("mqttgw.operations.forwarded.messages")
                .description("Forwarded operator operations: requests this node received and answered or refused "
                        + "busy, messages dropped as malformed, replies that came after the asker stopped waiting, "
                        + "requests this node did not send or no node received because the holder is gone "
                        + "(unreachable)")
                .tag("result", result).register(meters);
    }
}
