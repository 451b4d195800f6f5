package io.mqttgw.core.events;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connection lifecycle events (connected, refused, disconnected) and admin operations on the logger
 * {@code io.mqttgw.events}. At INFO at
 * most {@code log.lifecycle-rate} events a second are written; the rest are counted and summarised in the next
 * written line, so a storm of a million reconnects costs a few log lines. Per-message events do not exist here.
 * Client ids are escaped ({@link LogText}), so a device cannot forge a line.
 * Thread-safe and lock-free; the window check is approximate under contention, which is fine for a log budget.
 */
public final class EventLog {
    private static final int MAX_DETAIL = 300;

    private static final Logger LOG = LoggerFactory.getLogger("io.mqttgw.events");

    private final int perSecond;
    private final AtomicLong windowStart = new AtomicLong();
    private final AtomicInteger inWindow = new AtomicInteger();
    private final AtomicLong suppressed = new AtomicLong();

    public EventLog(int perSecond) {
        this.perSecond = perSecond;
    }

    public void connected(String clientId, Object remote, String listener) {
        if (admit()) {
            LOG.info("connected client={} remote={} listener={}{}", LogText.escape(clientId), remote, listener,
                    suppressedNote());
        }
    }

    public void refused(String clientId, Object remote, Object code) {
        if (admit()) {
            LOG.info("refused client={} remote={} connack={}{}", LogText.escape(clientId), remote, code,
                    suppressedNote());
        }
    }

    public void disconnected(String clientId, Object remote, String reason) {
        if (admit()) {
            LOG.info("disconnected client={} remote={} reason={}{}", LogText.escape(clientId), remote, reason,
                    suppressedNote());
        }
    }

    /**
     * An open connection closed because a reloaded CRL revokes its certificate: which CA's list and which serial
     * (hexadecimal, as {@code openssl crl -text} prints it). Rate-limited like the other lifecycle events.
     */
    public void certificateRevoked(String clientId, Object remote, Object issuer, String serialHex) {
        if (admit()) {
            LOG.info("certificate revoked client={} remote={} issuer=\"{}\" serial={}{}", LogText.escape(clientId),
                    remote, LogText.escape(String.valueOf(issuer)), serialHex, suppressedNote());
        }
    }

    /**
     * An admin operation by an authenticated operator (token id or certificate subject): what it asked and what
     * came of it, refusals included. Always written, not rate-limited: operations are few and this is their audit
     * trail. Values are escaped, so a topic or client id cannot forge a log line.
     */
    public void operation(String operator, Object remote, String what, String outcome) {
        LOG.info("operation operator={} remote={} what={} outcome={}", LogText.escape(operator), remote,
                LogText.escape(what), LogText.escape(outcome));
    }

    /**
     * An operation another node forwarded to this one for a device this node holds, as that node's operator asked
     * it: the asking node and the correlation id that its own {@link #operation} line carries, what and what came of
     * it. Always written, like an operation: a platform team reading this node's log sees every command its devices
     * got, wherever the operator called.
     */
    public void forwardedOperation(String askingNode, String correlation, String what, String outcome) {
        LOG.info("operation forwarded from={} correlation={} what={} outcome={}", LogText.escape(askingNode),
                correlation, LogText.escape(what), LogText.escape(outcome));
    }

    /**
     * A forwarded operation this node refused before running it (busy, starting, shutting down), in the line
     * {@link #forwardedOperation} writes: the asking node's 503 has a counterpart in the holder's log. Static, since
     * a node that is starting refuses before its event log is handed to anyone; always written, like the others.
     */
    public static void forwardedOperationRefused(String askingNode, String correlation, String what, String reason) {
        LOG.info("operation forwarded from={} correlation={} what={} outcome={}", LogText.escape(askingNode),
                correlation, LogText.escape(what), LogText.escape("refused: " + reason));
    }

    /** An admin request refused before an operator was known (no or a wrong credential); rate-limited. */
    public void operationRefused(Object remote, String what, String reason) {
        if (admit()) {
            LOG.info("operation refused remote={} what={} reason={}{}", remote, LogText.escape(what),
                    LogText.escape(reason), suppressedNote());
        }
    }

    /**
     * A refused TLS handshake: the reason label and what the engine or the verifier said. The detail can carry text
     * from the peer's certificate, so control characters are escaped.
     */
    public void tlsRefused(Object remote, String reason, String detail) {
        // a certificate subject can be long; the first part says enough and keeps the line bounded
        if (admit()) {
            LOG.info("tls handshake refused remote={} reason={} detail=\"{}\"{}", remote, reason,
                    LogText.escape(detail == null || detail.length() <= MAX_DETAIL ? detail
                            : detail.substring(0, MAX_DETAIL)), suppressedNote());
        }
    }

    private boolean admit() {
        if (!LOG.isInfoEnabled()) {
            return false;
        }
        long now = System.nanoTime() / 1_000_000_000L;
        long start = windowStart.get();
        if (now != start && windowStart.compareAndSet(start, now)) {
            inWindow.set(0);
        }
        if (inWindow.incrementAndGet() <= perSecond) {
            return true;
        }
        suppressed.incrementAndGet();
        return false;
    }

    private String suppressedNote() {
        long n = suppressed.getAndSet(0);
        return n == 0 ? "" : " (" + n + " lifecycle events not logged since the last line)";
    }
}
