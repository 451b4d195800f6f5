package io.mqttgw.bench.sim.device;

import java.net.BindException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.PortUnreachableException;
import java.nio.channels.ClosedChannelException;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.ssl.SslHandshakeTimeoutException;

/**
 * Maps a connection failure to a short reason label for the live line and report: by exception type, never by
 * message text. Stateless.
 */
public final class FailureReasons {
    /**
     * Not a reason but a count next to them: devices whose second attempt in a row failed (each counted once per
     * run of failures), i.e. devices turned away more than once.
     */
    public static final String DEVICE_FAILED_AGAIN = "devices_failed_more_than_once";

    /** The TCP connect was refused: nothing listens on the port (a dead or drained node). */
    public static final String CONNECT_REFUSED = "connect_refused";

    private FailureReasons() {
    }

    public static String of(Throwable t) {
        Throwable c = t;
        for (int depth = 0; c != null && depth < 8; depth++, c = c.getCause()) {
            if (c instanceof ConnectTimeoutException) {
                return "connect_timeout";
            }
            if (c instanceof BindException) {
                return "source_address_unavailable";
            }
            if (c instanceof ConnectException) {
                return CONNECT_REFUSED;
            }
            if (c instanceof NoRouteToHostException || c instanceof PortUnreachableException) {
                return "unreachable";
            }
            if (c instanceof SslHandshakeTimeoutException) {
                return "tls_handshake_timeout";
            }
            if (c instanceof SSLHandshakeException) {
                return "tls_handshake_failed";
            }
            if (c instanceof SSLException) {
                return "tls_error";
            }
            if (c instanceof ClosedChannelException) {
                return "closed";
            }
            if (c instanceof java.io.IOException && c.getClass().getName().contains("NativeIoException")) {
                return "io_error";
            }
        }
        return "other_" + t.getClass().getSimpleName();
    }
}
