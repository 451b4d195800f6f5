package io.mqttgw.bench.sim.config;

/** A command-line argument that cannot be used; the message names the option, the value and what is allowed. */
public final class BadArgumentException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public BadArgumentException(String message) {
        super(message);
    }
}
