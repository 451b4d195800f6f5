package io.mqttgw.routing.session;

import static io.mqttgw.routing.session.SessionCalls.ascii;

import io.mqttgw.core.spi.SessionStore.StoredMessage;
import io.mqttgw.core.spi.SessionStore.StoredSession;
import io.mqttgw.core.spi.Subscription;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.redisson.api.RScript;

/**
 * A device's session opened at CONNECT: the stored subscriptions and queued messages restored (or the session
 * started anew), in one script, asked again with backoff for up to {@code session.open-timeout} while Redis does not
 * answer, unless it has answered nothing for that long already ({@link SessionOpenGate}). A clean start that ends a
 * session whose delayed will was waiting publishes that will now.
 *
 * <p>Threading: called on the device's event loop and never blocks; the stage completes on the Redis client's
 * threads (a retry starts on {@link java.util.concurrent.CompletableFuture#delayedExecutor}). Thread-safe.
 */
final class SessionOpen {
    private final SessionCalls calls;
    private final SessionKeys keys;
    private final RedisDelayedWills wills;
    private final SessionOpenGate gate;
    /** How long a session open keeps asking while Redis does not answer ({@code session.open-timeout}); 0: once. */
    private volatile long openPatienceNanos;

    SessionOpen(SessionCalls calls, SessionKeys keys, RedisDelayedWills wills) {
        this.calls = calls;
        this.keys = keys;
        this.wills = wills;
        this.gate = new SessionOpenGate(calls);
    }

    void patience(Duration openTimeout) {
        this.openPatienceNanos = openTimeout.toNanos();
    }

    CompletionStage<StoredSession> open(String clientId, boolean cleanStart, long expiryMillis, long epoch) {
        long patience = openPatienceNanos;
        if (!gate.admits(patience, keys.session(clientId))) {
            return CompletableFuture.failedFuture(SessionStoreNotConnectedException.UNANSWERED);
        }
        boolean nothingKept = cleanStart && expiryMillis == 0;
        long deadline = System.nanoTime() + patience;
        // the script is the same on every try (same epoch, same flags), so one that ran but whose answer was lost
        // changes nothing when it runs again
        CompletionStage<List<Object>> reply = calls.inOrder(clientId, () -> calls.untilAnswered(() -> calls.eval(
                keys.session(clientId), SessionScripts.OPEN, RScript.ReturnType.LIST, List.of(keys.session(clientId),
                        keys.pending(clientId), keys.messages(clientId), keys.will(clientId)),
                cleanStart ? ascii(1) : ascii(0), ascii(epoch), nothingKept ? ascii(0) : ascii(1)), deadline));
        return reply.whenComplete((r, error) -> {
            if (error != null) {
                calls.logFailure("opening the session", clientId, error);
            } else if (r != null && r.size() > 4 && r.get(4) instanceof byte[] will) {
                // a clean start ended a session whose will was waiting for its delay: it goes out now, from here
                wills.sessionEnded(will);
            }
        }).thenApply(r -> nothingKept || r == null || r.isEmpty() ? StoredSession.NONE : session(r));
    }

    @SuppressWarnings("unchecked")
    private static StoredSession session(List<Object> r) {
        boolean existed = r.get(0) instanceof Long n && n == 1;
        Map<String, Subscription> subscriptions = MessageCodec.decodeSubscriptions((byte[]) r.get(1));
        List<Object> ids = r.size() > 2 && r.get(2) instanceof List<?> l ? (List<Object>) l : List.of();
        List<Object> messages = r.size() > 3 && r.get(3) instanceof List<?> l ? (List<Object>) l : List.of();
        List<StoredMessage> pending = new ArrayList<>(ids.size());
        for (int i = 0; i < ids.size() && i < messages.size(); i++) {
            if (messages.get(i) instanceof byte[] bytes) {
                pending.add(new StoredMessage(text(ids.get(i)), MessageCodec.decode(bytes)));
            }
        }
        return new StoredSession(existed, subscriptions, pending);
    }

    /** Opens not sent because Redis had answered nothing for a whole {@code session.open-timeout}. */
    long skippedCount() {
        return gate.skippedCount();
    }

    static String text(Object o) {
        return o instanceof byte[] b ? new String(b, StandardCharsets.US_ASCII) : String.valueOf(o);
    }
}
