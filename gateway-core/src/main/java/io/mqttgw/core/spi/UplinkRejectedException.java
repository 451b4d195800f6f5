package io.mqttgw.core.spi;

/** A sink refused a message without trying (full, closed); stackless because it is counted, not logged. */
public final class UplinkRejectedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UplinkRejectedException(String reason) {
        super(reason, null, false, false);
    }
}
