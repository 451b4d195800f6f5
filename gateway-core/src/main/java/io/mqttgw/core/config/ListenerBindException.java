package io.mqttgw.core.config;

/**
 * A listener could not bind its address: the message names the one port key and address that failed (a port in use,
 * an address not of this host, a port below 1024 without the capability), so the operator changes that key and no
 * other. The cause is the socket's own error.
 */
public final class ListenerBindException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final String key;

    public ListenerBindException(ConfigKey<?> portKey, String host, int port, Throwable cause) {
        super(portKey.name() + "=" + port + ": cannot listen on " + host + ":" + port + ": " + reason(cause)
                + " (another process may hold the port: stop it, or set " + portKey.name() + " to a free one)", cause);
        this.key = portKey.name();
    }

    /** The port key of the listener that failed. */
    public String key() {
        return key;
    }

    private static String reason(Throwable cause) {
        String message = cause.getMessage();
        return message == null ? cause.getClass().getSimpleName() : message;
    }
}
