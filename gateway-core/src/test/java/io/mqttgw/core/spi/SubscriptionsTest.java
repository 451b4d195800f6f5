package io.mqttgw.core.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SubscriptionsTest {
    @Test
    void keepsSubscriptionOrderAndReplacesInPlace() {
        Subscriptions s = Subscriptions.NONE.with("z/#", Subscription.ofQos(1)).with("a/+", Subscription.ofQos(0))
                .with("z/#", Subscription.ofQos(2));
        assertEquals(List.of("z/#", "a/+"), List.copyOf(s.keySet()));
        assertEquals(2, s.get("z/#").qos());
        assertEquals("a/+", s.filter(1));
        assertEquals(Subscription.ofQos(0), s.subscription(1));
    }

    @Test
    void changesMakeNewInstancesAndLeaveTheOldOneAsItWas() {
        Subscriptions one = Subscriptions.NONE.with("a", Subscription.ofQos(1));
        Subscriptions two = one.with("b", Subscription.ofQos(0));
        assertEquals(1, one.size());
        assertEquals(2, two.size());
        assertSame(two, two.with("b", Subscription.ofQos(0)));
        assertSame(two, two.without("missing"));
        assertEquals(Map.of("b", Subscription.ofQos(0)), two.without("a"));
        assertSame(Subscriptions.NONE, one.without("a"));
        assertNull(two.without("b").get("b"));
    }

    @Test
    void copyOfKeepsIterationOrderAndSharesAnInstanceItIsGiven() {
        Map<String, Subscription> ordered = new LinkedHashMap<>();
        ordered.put("m", Subscription.ofQos(0));
        ordered.put("c", Subscription.of(1, true, 1, 7));
        Subscriptions copy = Subscriptions.copyOf(ordered);
        assertEquals(List.copyOf(ordered.entrySet()), List.copyOf(copy.entrySet()));
        assertEquals(ordered, copy);
        assertSame(copy, Subscriptions.copyOf(copy));
        assertSame(Subscriptions.NONE, Subscriptions.copyOf(Map.of()));
    }

    @Test
    void isReadOnlyAsAMap() {
        Subscriptions s = Subscriptions.NONE.with("a", Subscription.ofQos(1));
        assertThrows(UnsupportedOperationException.class, () -> s.put("b", Subscription.ofQos(0)));
        assertThrows(UnsupportedOperationException.class, () -> s.remove("a"));
    }
}
