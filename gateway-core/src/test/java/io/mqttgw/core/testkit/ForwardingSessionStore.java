package io.mqttgw.core.testkit;

import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.spi.Subscription;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * A session store that hands every call a store must answer to another one, for a test that records, holds back or
 * replaces just the calls it is about. What the interface itself defaults (start, describe, delayed wills, health,
 * close) stays the interface's default, not the delegate's, so wrapping a store adds no capability to it. Any thread
 * the delegate allows.
 */
public class ForwardingSessionStore implements SessionStore {
    private final SessionStore delegate;

    public ForwardingSessionStore(SessionStore delegate) {
        this.delegate = delegate;
    }

    protected final SessionStore delegate() {
        return delegate;
    }

    @Override
    public CompletionStage<StoredSession> open(String clientId, boolean cleanStart, long expiryMillis, long epoch) {
        return delegate.open(clientId, cleanStart, expiryMillis, epoch);
    }

    @Override
    public CompletionStage<Void> disconnected(String clientId, long epoch, long expiryMillis) {
        return delegate.disconnected(clientId, epoch, expiryMillis);
    }

    @Override
    public CompletionStage<Void> saveSubscriptions(String clientId, Map<String, Subscription> subscriptions) {
        return delegate.saveSubscriptions(clientId, subscriptions);
    }

    @Override
    public CompletionStage<Append> append(DownlinkMessage message) {
        return delegate.append(message);
    }

    @Override
    public CompletionStage<Void> remove(String clientId, String messageId) {
        return delegate.remove(clientId, messageId);
    }

    @Override
    public CompletionStage<Void> retain(DownlinkMessage message) {
        return delegate.retain(message);
    }

    @Override
    public CompletionStage<List<DownlinkMessage>> retained(String topicFilter) {
        return delegate.retained(topicFilter);
    }
}
