package io.mqttgw.core.spi;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * The node's side of the session store, given to a {@link SessionStore} at start: the persistent sessions this node
 * holds now, as the node holds them, so a store that lost its data (a Redis emptied or restarted without persistence)
 * can write them again. Callable from any thread; nothing here blocks.
 */
public interface LiveSessions {
    /**
     * The persistent sessions of this node's connected devices. Each session is read on its own event loop (one task
     * per event loop, not per connection); the stage completes once every event loop answered, on the last one's
     * thread: continue elsewhere for anything but a hand-off.
     */
    CompletionStage<List<LiveSession>> snapshot();

    /**
     * One connected device's persistent session.
     *
     * @param sessionKey    the key the store knows the session by (the {@code clientId} of {@link SessionStore})
     * @param epoch         the connection's route epoch, which opened the session
     * @param subscriptions its subscriptions now, in subscription order
     */
    record LiveSession(String sessionKey, long epoch, Map<String, Subscription> subscriptions) {
    }
}
