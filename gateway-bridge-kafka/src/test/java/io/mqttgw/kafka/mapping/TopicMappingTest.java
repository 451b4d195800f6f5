package io.mqttgw.kafka.mapping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TopicMappingTest {
    private final TopicMapping mapping = TopicMapping.parse(List.of("devices/{id}/heartbeat=device.heartbeat",
            "devices/+/status=device.status", "devices/#=device.other"), "device.uplink");

    @Test
    void mapsByTheFirstMatchingRule() {
        assertEquals("device.heartbeat", mapping.kafkaTopic("devices/d1/heartbeat"));
        assertEquals("device.status", mapping.kafkaTopic("devices/d1/status"));
        assertEquals("device.other", mapping.kafkaTopic("devices/d1/heartbeat/extra"));
        assertEquals("device.other", mapping.kafkaTopic("devices"));
    }

    @Test
    void fallsBackToTheDefaultTopic() {
        assertEquals("device.uplink", mapping.kafkaTopic("fleet/x"));
        assertEquals("device.uplink", mapping.kafkaTopic("$SYS/x"));
    }

    @Test
    void readsNamedLevelsAsSingleLevelWildcards() {
        assertEquals("devices/+/heartbeat", mapping.rules().get(0).filter());
    }

    @Test
    void listsEveryTopicForTheMetadataWarmUp() {
        assertEquals(Set.of("device.heartbeat", "device.status", "device.other", "device.uplink"),
                mapping.kafkaTopics());
    }

    @Test
    void refusesRulesThatAreNotFilterEqualsTopic() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TopicMapping.parse(List.of("devices/+"),
                "d")).getMessage().contains("is not FILTER=TOPIC"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TopicMapping.parse(List.of("a/#/b=t"), "d"))
                .getMessage().contains("invalid MQTT topic filter"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TopicMapping.parse(List.of("a=b c"), "d"))
                .getMessage().contains("is not a Kafka topic name"));
        assertThrows(IllegalArgumentException.class, () -> TopicMapping.parse(List.of(), "bad/topic"));
    }
}
