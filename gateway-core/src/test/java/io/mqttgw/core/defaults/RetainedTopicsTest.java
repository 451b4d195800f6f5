package io.mqttgw.core.defaults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.topic.TopicFilters;
import io.mqttgw.core.spi.DownlinkMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class RetainedTopicsTest {
    private static final List<String> TOPICS = List.of("a", "a/b", "a/b/c", "a/c", "a//c", "/a", "b/b", "$SYS/x",
            "$SYS", "a/$x", "devices/d1/state", "devices/d2/state", "devices/d2/config/x", "x/y/z/w");
    private static final List<String> FILTERS = List.of("#", "+", "+/+", "a/#", "a/+", "a/+/c", "+/b", "+/+/+",
            "/+", "/#", "$SYS/#", "$SYS", "+/x", "a/$x", "a/+/#", "devices/+/state", "devices/d2/#", "+/#", "a",
            "a//c", "a/b/c/#", "x/+/+/w", "nothing/#");

    private static DownlinkMessage message(String topic) {
        return new DownlinkMessage("c", topic, 1, true, topic.getBytes(StandardCharsets.UTF_8));
    }

    private static Set<String> matched(RetainedTopics tree, String filter) {
        List<DownlinkMessage> out = new ArrayList<>();
        tree.match(filter, out);
        Set<String> topics = new TreeSet<>();
        out.forEach(m -> assertTrue(topics.add(m.topic()), "each message once"));
        return topics;
    }

    @Test
    void matchesExactlyWhatTheFilterRulesMatch() {
        RetainedTopics tree = new RetainedTopics();
        TOPICS.forEach(t -> assertTrue(tree.put(message(t), 100)));
        for (String filter : FILTERS) {
            Set<String> expected = new TreeSet<>();
            TOPICS.stream().filter(t -> TopicFilters.matches(filter, t)).forEach(expected::add);
            assertEquals(expected, matched(tree, filter), filter);
        }
    }

    @Test
    void wildcardsAtTheFirstLevelDoNotMatchDollarTopics_MQTT_4_7_2_1() {
        RetainedTopics tree = new RetainedTopics();
        tree.put(message("$SYS/uptime"), 10);
        tree.put(message("sys/uptime"), 10);
        assertEquals(Set.of("sys/uptime"), matched(tree, "#"));
        assertEquals(Set.of("sys/uptime"), matched(tree, "+/uptime"));
        assertEquals(Set.of("$SYS/uptime"), matched(tree, "$SYS/#"));
    }

    @Test
    void replacesPerTopicBoundsNewTopicsAndDeletesPruneTheTree() {
        RetainedTopics tree = new RetainedTopics();
        assertTrue(tree.put(message("a/b/c"), 2));
        assertTrue(tree.put(message("a/b/c"), 2), "a replacement is not a new topic");
        assertTrue(tree.put(message("a/x"), 2));
        assertFalse(tree.put(message("a/y"), 2), "a third topic passes the bound");
        assertEquals(2, tree.size());
        assertEquals(4, tree.nodes());
        tree.remove("a/b/c");
        assertEquals(2, tree.nodes(), "a/b and a/b/c pruned, a and a/x stay");
        assertEquals(Set.of("a/x"), matched(tree, "a/#"));
        tree.remove("a/x");
        assertEquals(0, tree.nodes());
        assertEquals(0, tree.size());
        tree.remove("never/there");
    }

    @Test
    void aDeleteKeepsAParentThatHoldsAMessage() {
        RetainedTopics tree = new RetainedTopics();
        tree.put(message("a"), 10);
        tree.put(message("a/b"), 10);
        tree.remove("a/b");
        assertEquals(Set.of("a"), matched(tree, "a/#"));
        assertEquals(1, tree.nodes());
    }
}
