package io.mqttgw.core.topic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class TopicLimitsTest {
    private final TopicLimits limits = new TopicLimits(16, 3);

    @Test
    void acceptsTopicsWithinBothBounds() {
        assertNull(limits.check("a/b/c"));
        assertNull(limits.check("devices/dev-1/x"));
        assertNull(limits.check("../../.."), "'..' is plain text within the bounds");
    }

    @Test
    void refusesTooManyLevelsIncludingDotDotAndEmptyLevels() {
        assertEquals(TopicLimits.Exceeded.LEVELS, limits.check("a/b/c/d"));
        assertEquals(TopicLimits.Exceeded.LEVELS, limits.check("../../../x"));
        assertEquals(TopicLimits.Exceeded.LEVELS, limits.check("///"));
    }

    @Test
    void countsLengthInUtf8Bytes() {
        assertNull(limits.check("aaaaaaaaaaaaaaaa"));
        assertEquals(TopicLimits.Exceeded.LENGTH, limits.check("aaaaaaaaaaaaaaaaa"));
        // 6 characters, 18 bytes
        assertEquals(TopicLimits.Exceeded.LENGTH, limits.check("€€€€€€"));
        assertNull(limits.check("€€€€€"));
    }

    @Test
    void defaultsAreOneKibibyteAndSixteenLevels() {
        assertEquals(new TopicLimits(1024, 16), TopicLimits.DEFAULT);
    }
}
