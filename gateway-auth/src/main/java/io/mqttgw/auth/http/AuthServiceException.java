package io.mqttgw.auth.http;

/** A call that produced no answer; {@link #outcome()} is its label in metrics. */
public final class AuthServiceException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String outcome;

    public AuthServiceException(String outcome, String message) {
        super(message, null, false, false);
        this.outcome = outcome;
    }

    /** {@code no_connection}, {@code bad_status} or {@code bad_response}; transport failures are classified by
     * their exception type instead. */
    public String outcome() {
        return outcome;
    }
}
