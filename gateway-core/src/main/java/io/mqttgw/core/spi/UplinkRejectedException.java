package io.mqttgw.core.spi;

/**
 * A sink refused a message without trying (full, closed, unknown topic); stackless because it is counted, not logged.
 * A refusal {@linkplain #capacity() for capacity} means "no room now", not a failure: a caller that asked
 * {@link UplinkSink#waitForRoom} is told when to send it again.
 */
public final class UplinkRejectedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final boolean capacity;

    public UplinkRejectedException(String reason) {
        this(reason, false);
    }

    /** @param capacity whether the sink refused only because its bound is full (the message may be sent again) */
    public UplinkRejectedException(String reason, boolean capacity) {
        super(reason, null, false, false);
        this.capacity = capacity;
    }

    /** Whether the refusal was only for want of room in the sink's bound. */
    public boolean capacity() {
        return capacity;
    }

    /** Whether a sink's failure is a refusal, also when a dependent stage wrapped it in a CompletionException. */
    public static boolean isRefusal(Throwable error) {
        return unwrap(error) instanceof UplinkRejectedException;
    }

    /** Whether a sink's failure is a refusal for capacity, also when wrapped in a CompletionException. */
    public static boolean isCapacity(Throwable error) {
        return unwrap(error) instanceof UplinkRejectedException r && r.capacity;
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
    }
}
