package io.mqttgw.core.mqtt.downlink;

import io.mqttgw.core.spi.Subscription;
import io.mqttgw.core.spi.Subscriptions;
import io.mqttgw.core.topic.SubscriptionMatch;
import io.mqttgw.core.topic.TopicFilters;
import java.util.Arrays;

/**
 * Which of a connection's subscriptions a downlink topic matches, and what that grants. Here rather than in
 * {@code core.topic} because it reads the SPI's {@link Subscriptions}, and the SPI already depends on what
 * {@code core.topic} is used by. Stateless; any thread (the subscriptions are immutable).
 */
public final class SubscriptionMatcher {
    private SubscriptionMatcher() {
    }

    /** Granted QoS of the best filter of {@code subscriptions} matching {@code topic}, or -1. */
    public static int grantedQos(Subscriptions subscriptions, String topic) {
        int best = -1;
        for (int i = 0; i < subscriptions.size(); i++) {
            if (TopicFilters.matches(subscriptions.filter(i), topic)) {
                best = Math.max(best, subscriptions.subscription(i).qos());
            }
        }
        return best;
    }

    /**
     * Every subscription matching {@code topic} folded into one (MQTT 5.0, 3.3.4): the highest granted QoS, retain as
     * published if any asks for it, and the identifiers of all of them; null when none matches. For a connection that
     * takes properties; a 3.1.1 one asks {@link #grantedQos} and allocates nothing.
     */
    public static SubscriptionMatch match(Subscriptions subscriptions, String topic) {
        int qos = -1;
        boolean retainAsPublished = false;
        int[] identifiers = SubscriptionMatch.NO_IDENTIFIERS;
        for (int i = 0; i < subscriptions.size(); i++) {
            if (TopicFilters.matches(subscriptions.filter(i), topic)) {
                Subscription s = subscriptions.subscription(i);
                qos = Math.max(qos, s.qos());
                retainAsPublished |= s.retainAsPublished();
                if (s.identifier() != 0) {
                    identifiers = Arrays.copyOf(identifiers, identifiers.length + 1);
                    identifiers[identifiers.length - 1] = s.identifier();
                }
            }
        }
        return qos < 0 ? null : new SubscriptionMatch(qos, retainAsPublished, identifiers);
    }
}
