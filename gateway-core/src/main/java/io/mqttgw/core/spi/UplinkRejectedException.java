package io.mqttgw.core.spi;

/** A sink refused a message without trying (full, closed); stackless because it is counted, not logged. */
public final class UplinkRejectedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UplinkRejectedException(String reason) {
        super(reason, null, false, false);
    }

    /** Whether a sink's failure is a refusal, also when a dependent stage wrapped it in a CompletionException. */
    public static boolean isRefusal(Throwable error) {
        Throwable t = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
        return t instanceof UplinkRejectedException;
    }
}
