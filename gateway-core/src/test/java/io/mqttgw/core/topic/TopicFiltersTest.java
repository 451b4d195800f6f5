package io.mqttgw.core.topic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TopicFiltersTest {

    @ParameterizedTest
    @ValueSource(strings = {"a", "a/b", "#", "+", "a/#", "a/+", "+/b", "+/+", "a/+/c", "/", "/a", "a/", "+/#",
            "$SYS/#", "sport/tennis/player1/#", "a//b", "ü/€"})
    void acceptsValidFilters(String filter) {
        assertTrue(TopicFilters.isValidFilter(filter), filter);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "#/a", "a#", "a/#/b", "a+", "+a", "a/b+", "a/+b/c", "##", "a/##", "++"})
    void refusesInvalidFilters(String filter) {
        assertFalse(TopicFilters.isValidFilter(filter), filter);
    }

    @Test
    void refusesUPlus0000AndOverlongFilters() {
        assertFalse(TopicFilters.isValidFilter("a\u0000b"));
        assertFalse(TopicFilters.isValidFilter("a".repeat(65536)));
        assertTrue(TopicFilters.isValidFilter("a".repeat(65535)));
    }

    @ParameterizedTest(name = "{0} matches {1}: {2}")
    @CsvSource({
            "a/b, a/b, true",
            "a/b, a/c, false",
            "a/b, a/bc, false",
            "a/bc, a/b, false",
            "a/b, a/b/c, false",
            "#, a, true",
            "#, a/b/c, true",
            "#, /a, true",
            "a/#, a/b, true",
            "a/#, a/b/c, true",
            "a/#, a, true",
            "a/#, ab, false",
            "a/#, b/a, false",
            "a/b/#, a/bc, false",
            "+, a, true",
            "+, a/b, false",
            "+, /a, false",
            "+/+, /a, true",
            "a/+, a/b, true",
            "a/+, a/, true",
            "a/+, a, false",
            "a/+, a/b/c, false",
            "+/b, a/b, true",
            "a/+/c, a/b/c, true",
            "a/+/c, a/b/d, false",
            "a/+/#, a/b, true",
            "a/+/#, a/b/c/d, true",
            "sport/+, sport, false",
            "sport/+, sport/, true",
            "/+, /a, true",
            "#, $SYS, false",
            "#, $SYS/broker/load, false",
            "+/broker, $SYS/broker, false",
            "$SYS/#, $SYS/broker/load, true",
            "$SYS/+/load, $SYS/broker/load, true",
            "a/$b, a/$b, true",
            "+, $, false",
    })
    void matchesTopicsAgainstFilters(String filter, String topic, boolean expected) {
        assertEquals(expected, TopicFilters.matches(filter, topic), filter + " vs " + topic);
    }

    @Test
    void wildcardsMatchDollarTopicsBelowTheFirstLevel() {
        assertTrue(TopicFilters.matches("a/#", "a/$x"));
        assertTrue(TopicFilters.matches("a/+", "a/$x"));
    }
}
