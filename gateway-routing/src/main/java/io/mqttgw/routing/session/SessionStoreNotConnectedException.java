package io.mqttgw.routing.session;

/**
 * A session store call failed at once because Redis has not answered yet ({@link #INSTANCE}, counted in
 * {@code mqttgw_sessions_redis_refused_total}), or a session open was not sent because Redis has answered nothing for
 * a whole {@code session.open-timeout} ({@link #UNANSWERED}, counted in {@code mqttgw_sessions_redis_skipped_total});
 * stackless, as both are counted rather than logged one by one.
 */
public final class SessionStoreNotConnectedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    static final SessionStoreNotConnectedException INSTANCE =
            new SessionStoreNotConnectedException("redis session store not connected yet");
    static final SessionStoreNotConnectedException UNANSWERED = new SessionStoreNotConnectedException(
            "redis session store answered nothing for a whole session.open-timeout; served as a new session at once");

    private SessionStoreNotConnectedException(String message) {
        super(message);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}
