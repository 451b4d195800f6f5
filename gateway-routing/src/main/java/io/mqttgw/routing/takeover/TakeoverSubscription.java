package io.mqttgw.routing.takeover;

import io.micrometer.core.instrument.Counter;
import io.mqttgw.core.spi.RouteEvents;
import java.util.concurrent.atomic.AtomicBoolean;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's takeover channel: each message closes the session it names through
 * {@link RouteEvents#takenOver}, which is fenced by epoch, so a late or repeated message cannot close a newer
 * session. Messages arrive on the Redis client's threads; nothing here blocks. Redisson resubscribes after a
 * reconnect; a subscription that failed (Redis down at startup) is retried by {@link #ensure}.
 */
public final class TakeoverSubscription {
    private static final Logger LOG = LoggerFactory.getLogger(TakeoverSubscription.class);

    private final RTopic topic;
    private final RouteEvents events;
    private final Counter received;
    private final AtomicBoolean subscribing = new AtomicBoolean();
    private volatile boolean subscribed;

    public TakeoverSubscription(RedissonClient client, String channel, RouteEvents events, Counter received) {
        this.topic = client.getTopic(channel, StringCodec.INSTANCE);
        this.events = events;
        this.received = received;
    }

    /**
     * Subscribes unless subscribed or subscribing. Call it where waiting is allowed: the lazily connecting client
     * connects on the caller's thread the first time.
     */
    public void ensure() {
        if (subscribed || !subscribing.compareAndSet(false, true)) {
            return;
        }
        try {
            topic.addListenerAsync(String.class, (channel, text) -> onMessage(text)).whenComplete(this::subscribed);
        } catch (RuntimeException e) {
            subscribed(null, e);
        }
    }

    private void subscribed(Integer listenerId, Throwable error) {
        if (error == null) {
            subscribed = true;
            LOG.debug("subscribed to takeover channel {}", topic.getChannelNames());
        } else {
            LOG.debug("takeover channel subscription failed, retried later: {}", error.toString());
        }
        subscribing.set(false);
    }

    public boolean subscribed() {
        return subscribed;
    }

    private void onMessage(String text) {
        TakeoverMessage m = TakeoverMessage.parse(text);
        if (m == null) {
            LOG.warn("ignoring a malformed takeover message: {}", text);
            return;
        }
        received.increment();
        events.takenOver(m.clientId(), m.epoch());
    }

    public void close() {
        if (subscribed) {
            try {
                topic.removeAllListeners();
            } catch (RuntimeException e) {
                LOG.debug("takeover channel unsubscribe failed: {}", e.toString());
            }
        }
    }
}
