package io.mqttgw.routing.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The Redis glob that narrows an HSCAN to the candidates of an MQTT filter (the script then matches exactly). */
class RedisSessionStoreGlobTest {

    @Test
    void aSingleLevelWildcardBecomesAStar() {
        assertEquals("fleet/*/config", RedisSessionStore.glob("fleet/+/config"));
        assertEquals("*", RedisSessionStore.glob("+"));
        assertEquals("*/*", RedisSessionStore.glob("+/+"));
        assertEquals("/*", RedisSessionStore.glob("/+"));
    }

    @Test
    void aMultiLevelWildcardBecomesATrailingStarThatAlsoMatchesTheParent() {
        assertEquals("fleet*", RedisSessionStore.glob("fleet/#"));
        assertEquals("*", RedisSessionStore.glob("#"));
        assertEquals("*/a*", RedisSessionStore.glob("+/a/#"));
    }

    @Test
    void anExactTopicIsItsOwnGlob() {
        assertEquals("devices/dev-1/commands", RedisSessionStore.glob("devices/dev-1/commands"));
        assertEquals("a//b", RedisSessionStore.glob("a//b"));
    }

    @Test
    void globCharactersInLiteralLevelsAreEscaped() {
        assertEquals("a\\*b/*", RedisSessionStore.glob("a*b/+"));
        assertEquals("x\\?y", RedisSessionStore.glob("x?y"));
        assertEquals("\\[z\\]*", RedisSessionStore.glob("[z]/#"));
        assertEquals("back\\\\slash", RedisSessionStore.glob("back\\slash"));
        assertEquals("s^t", RedisSessionStore.glob("s^t"), "^ is special only inside brackets");
    }
}
