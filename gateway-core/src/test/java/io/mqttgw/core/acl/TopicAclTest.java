package io.mqttgw.core.acl;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TopicAclTest {
    private final TopicAcl own = new TopicAcl(List.of("devices/{client-id}/#", "fleet/announce"),
            List.of("devices/{client-id}/#", "fleet/+/firmware"));

    @ParameterizedTest(name = "{0} may publish to {1}: {2}")
    @CsvSource({
        "dev-1, devices/dev-1/telemetry, true",
        "dev-1, devices/dev-1, true",
        "dev-1, devices/dev-1/a/b/c, true",
        "dev-1, devices/dev-2/telemetry, false",
        "dev-1, devices/dev-10/telemetry, false",
        "dev-1, devices, false",
        "dev-1, fleet/announce, true",
        "dev-1, fleet/announce/x, false",
        "dev-1, $SYS/devices/dev-1, false"
    })
    void permitsPublishingOnlyWhereAFilterMatches(String clientId, String topic, boolean allowed) {
        assertEquals(allowed, own.mayPublish(clientId, topic));
    }

    @ParameterizedTest(name = "{0} may subscribe to {1}: {2}")
    @CsvSource({
        "dev-1, devices/dev-1/commands, true",
        "dev-1, devices/dev-1/#, true",
        "dev-1, devices/dev-1/+/x, true",
        "dev-1, devices/+/commands, false",
        "dev-1, devices/#, false",
        "dev-1, #, false",
        "dev-1, fleet/a/firmware, true",
        "dev-1, fleet/+/firmware, true",
        "dev-1, fleet/#, false",
        "dev-1, fleet/a/firmware/x, false"
    })
    void permitsSubscriptionsOnlyWhollyWithinAFilter(String clientId, String filter, boolean allowed) {
        assertEquals(allowed, own.maySubscribe(clientId, filter));
    }

    @ParameterizedTest(name = "allow-all publish to {0}: {1}")
    @CsvSource({"a/b, true", "$SYS/x, false", "x, true"})
    void allowAllStillKeepsWildcardsOffDollarTopics(String topic, boolean allowed) {
        assertEquals(allowed, TopicAcl.ALLOW_ALL.mayPublish("d", topic));
    }

    @ParameterizedTest(name = "identity {0} may subscribe to {1}: {2}")
    @CsvSource(delimiter = '|', value = {
        "+   | devices/+/#          | false",
        "+   | devices/+/commands   | false",
        "+   | devices/+            | false",
        "+   | devices/dev-2/commands | false",
        "#   | devices/#            | false",
        "#   | devices/+/#          | false",
        "#   | devices/dev-2/commands | false",
        "a/b | devices/a/b/commands | false",
        "a/b | devices/a/#          | false",
        "a/b | devices/+/#          | false"
    })
    void identityWithWildcardOrSeparatorGrantsNoOtherDevicesFilters(String identity, String filter, boolean allowed) {
        assertEquals(allowed, own.maySubscribe(identity, filter));
    }

    @ParameterizedTest(name = "identity {0} may publish to {1}: {2}")
    @CsvSource(delimiter = '|', value = {
        "+   | devices/+/telemetry     | false",
        "+   | devices/dev-2/telemetry | false",
        "#   | devices/#               | false",
        "#   | devices/dev-2/telemetry | false",
        "a/b | devices/a/b/telemetry   | false",
        "a/b | devices/a/telemetry     | false"
    })
    void identityWithWildcardOrSeparatorPublishesNowhereElse(String identity, String topic, boolean allowed) {
        assertEquals(allowed, own.mayPublish(identity, topic));
    }

    /**
     * The in-place walk of a topic name gives the answer of the level-split match on every topic and filter built
     * from a small alphabet of levels: empty levels, {@code $} levels, wildcards in either, identities with a
     * separator or a wildcard, and topics that are prefixes of filters and the other way round.
     */
    @org.junit.jupiter.api.Test
    void walkingATopicInPlaceAnswersAsSplittingItIntoLevels() {
        String[] levels = {"", "a", "b", "dev-1", "+", "#", "$SYS", "{client-id}", "devices"};
        String[] identities = {"dev-1", "a", "", "+", "#", "a/b", "devices"};
        java.util.Random random = new java.util.Random(15);
        for (int n = 0; n < 200_000; n++) {
            String filter = randomPath(random, levels);
            String topic = randomPath(random, levels).replace("{client-id}", "x");
            String identity = identities[random.nextInt(identities.length)];
            String[] allowed = filter.split("/", -1);
            assertEquals(TopicAcl.covers(allowed, topic.split("/", -1), identity),
                    TopicAcl.coversTopic(allowed, topic, identity),
                    "filter " + filter + ", topic " + topic + ", identity " + identity);
        }
    }

    private static String randomPath(java.util.Random random, String[] levels) {
        StringBuilder path = new StringBuilder(levels[random.nextInt(levels.length)]);
        for (int more = random.nextInt(4); more > 0; more--) {
            path.append('/').append(levels[random.nextInt(levels.length)]);
        }
        return path.toString();
    }

    @org.junit.jupiter.api.Test
    void emptyIdentityGrantsNothingUnderItsPlaceholder() {
        assertEquals(false, own.maySubscribe("", "devices//commands"));
        assertEquals(false, own.mayPublish("", "devices//telemetry"));
    }
}
