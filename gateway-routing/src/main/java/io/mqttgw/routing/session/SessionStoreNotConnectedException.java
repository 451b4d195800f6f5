package io.mqttgw.routing.session;

/**
 * A session store call failed at once because Redis has not answered yet; stackless, as it is counted
 * ({@code mqttgw_sessions_redis_refused_total}) rather than logged.
 */
public final class SessionStoreNotConnectedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    static final SessionStoreNotConnectedException INSTANCE = new SessionStoreNotConnectedException();

    private SessionStoreNotConnectedException() {
        super("redis session store not connected yet");
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}
