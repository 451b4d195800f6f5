package io.mqttgw.core.codec;

import io.netty.handler.codec.DecoderException;

/**
 * The cause carried by the invalid-message value {@link MqttPacketDecoder} emits: which {@link PacketRules} rule a
 * packet broke. A value passed down the pipeline, never thrown; no stack trace is filled in.
 */
final class InvalidPacketException extends DecoderException {
    private final transient PacketRules.Violation violation;

    InvalidPacketException(PacketRules.Violation violation) {
        super(violation.rule());
        this.violation = violation;
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        // a value, not an error of the gateway: the stack says nothing and costs an allocation per refused packet
        return this;
    }

    PacketRules.Violation violation() {
        return violation;
    }
}
