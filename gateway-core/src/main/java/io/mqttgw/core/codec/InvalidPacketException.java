package io.mqttgw.core.codec;

import io.netty.handler.codec.DecoderException;

/**
 * The cause carried by the invalid-message value the decoder emits for a refused packet: the {@link Violation}. A
 * value passed down the pipeline, never thrown; no stack trace is filled in.
 */
public final class InvalidPacketException extends DecoderException {
    private final transient Violation violation;

    InvalidPacketException(Violation violation) {
        super(violation.rule());
        this.violation = violation;
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        // a value, not an error of the gateway: the stack says nothing and costs an allocation per refused packet
        return this;
    }

    public Violation violation() {
        return violation;
    }
}
