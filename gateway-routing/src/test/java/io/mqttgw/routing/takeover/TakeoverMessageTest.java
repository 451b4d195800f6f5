package io.mqttgw.routing.takeover;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class TakeoverMessageTest {
    @Test
    void carriesClientIdsWithSpacesAndBraces() {
        TakeoverMessage m = new TakeoverMessage("dev {1} x", 1763772000000001L);
        assertEquals("1763772000000001 dev {1} x", m.encode());
        assertEquals(m, TakeoverMessage.parse(m.encode()));
    }

    @Test
    void malformedTextIsNotAMessage() {
        assertNull(TakeoverMessage.parse("nonsense"));
        assertNull(TakeoverMessage.parse("12x dev"));
        assertNull(TakeoverMessage.parse("12 "));
    }
}
