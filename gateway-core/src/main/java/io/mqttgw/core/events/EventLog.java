package io.mqttgw.core.events;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connection lifecycle events (connected, refused, disconnected) on the logger {@code io.mqttgw.events}. At INFO at
 * most {@code log.lifecycle-rate} events a second are written; the rest are counted and summarised in the next
 * written line, so a storm of a million reconnects costs a few log lines. Per-message events do not exist here.
 * Thread-safe and lock-free; the window check is approximate under contention, which is fine for a log budget.
 */
public final class EventLog {
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
            LOG.info("connected client={} remote={} listener={}{}", clientId, remote, listener, suppressedNote());
        }
    }

    public void refused(String clientId, Object remote, Object code) {
        if (admit()) {
            LOG.info("refused client={} remote={} connack={}{}", clientId, remote, code, suppressedNote());
        }
    }

    public void disconnected(String clientId, Object remote, String reason) {
        if (admit()) {
            LOG.info("disconnected client={} remote={} reason={}{}", clientId, remote, reason, suppressedNote());
        }
    }

    /**
     * A refused TLS handshake: the reason label and what the engine or the verifier said. The detail can carry text
     * from the peer's certificate, so control characters are escaped.
     */
    public void tlsRefused(Object remote, String reason, String detail) {
        if (admit()) {
            LOG.info("tls handshake refused remote={} reason={} detail=\"{}\"{}", remote, reason,
                    escapeControls(detail), suppressedNote());
        }
    }

    private static String escapeControls(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder out = new StringBuilder(Math.min(text.length(), 300));
        for (int i = 0; i < text.length() && i < 300; i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
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
