package io.mqttgw.routing.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The Redis glob that narrows an HSCAN to the candidates of an MQTT filter (the script then matches exactly). */
class RetainedMessagesGlobTest {

    @Test
    void aSingleLevelWildcardBecomesAStar() {
        assertEquals("fleet/*/config", RetainedMessages.glob("fleet/+/config"));
        assertEquals("*", RetainedMessages.glob("+"));
        assertEquals("*/*", RetainedMessages.glob("+/+"));
        assertEquals("/*", RetainedMessages.glob("/+"));
    }

    @Test
    void aMultiLevelWildcardBecomesATrailingStarThatAlsoMatchesTheParent() {
        assertEquals("fleet*", RetainedMessages.glob("fleet/#"));
        assertEquals("*", RetainedMessages.glob("#"));
        assertEquals("*/a*", RetainedMessages.glob("+/a/#"));
    }

    @Test
    void anExactTopicIsItsOwnGlob() {
        assertEquals("devices/dev-1/commands", RetainedMessages.glob("devices/dev-1/commands"));
        assertEquals("a//b", RetainedMessages.glob("a//b"));
    }

    @Test
    void globCharactersInLiteralLevelsAreEscaped() {
        assertEquals("a\\*b/*", RetainedMessages.glob("a*b/+"));
        assertEquals("x\\?y", RetainedMessages.glob("x?y"));
        assertEquals("\\[z\\]*", RetainedMessages.glob("[z]/#"));
        assertEquals("back\\\\slash", RetainedMessages.glob("back\\slash"));
        assertEquals("s^t", RetainedMessages.glob("s^t"), "^ is special only inside brackets");
    }
}
