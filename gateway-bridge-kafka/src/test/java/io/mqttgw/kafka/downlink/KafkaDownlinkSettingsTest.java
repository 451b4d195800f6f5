package io.mqttgw.kafka.downlink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.config.ConfigException;
import io.mqttgw.core.config.ConfigLoader;
import io.mqttgw.core.config.ConfigValues;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaDownlinkSettingsTest {
    @TempDir
    Path dir;

    private ConfigValues load(String yaml, Properties props) {
        try {
            return new ConfigLoader(ConfigLoader.withCoreKeys(KafkaDownlinkConfigKeys.ALL),
                    List.of(KafkaDownlinkConfigKeys.CONSUMER), Map.of(), props)
                    .load(Files.writeString(dir.resolve("g.yaml"), yaml));
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    private KafkaDownlinkSettings settings(String yaml, String node) {
        return KafkaDownlinkSettings.from(load(yaml, new Properties()), node);
    }

    @Test
    void makesThisNodesTopicGroupAndConsumerPropertiesAndPassesOthersThrough() {
        Properties sys = new Properties();
        sys.setProperty("mqttgw.downlink.kafka.consumer.fetch.max.wait.ms", "50");
        KafkaDownlinkSettings s = KafkaDownlinkSettings.from(load("downlink.kafka.bootstrap-servers: k1:9092\n"
                + "downlink:\n  kafka:\n    consumer:\n      enable.auto.commit: true\n      client.rack: r1\n"
                + "      group.id: stolen\n", sys), "gw-3");
        assertEquals("device.downlink.gw-3", s.topic());
        assertEquals("mqttgw-downlink-gw-3", s.groupId());
        assertEquals(1000, s.maxInFlight());
        Properties p = s.consumerProperties("mqttgw-downlink-gw-3");
        assertEquals("false", p.get("enable.auto.commit"), "the gateway owns commits");
        assertEquals("mqttgw-downlink-gw-3", p.get("group.id"), "the gateway owns the group");
        assertEquals("earliest", p.get("auto.offset.reset"));
        assertEquals("r1", p.get("client.rack"));
        assertEquals("50", p.get("fetch.max.wait.ms"));
        assertEquals("k1:9092", p.get("bootstrap.servers"));
    }

    @Test
    void requiresBootstrapServers() {
        ConfigException e = assertThrows(ConfigException.class, () -> settings("downlink.kafka.max-in-flight: 5\n",
                "n"));
        assertTrue(e.getMessage().startsWith("downlink.kafka.bootstrap-servers is required"), e.getMessage());
    }

    @Test
    void wantsTheNodeInTheTopicTemplate() {
        ConfigException e = assertThrows(ConfigException.class, () -> settings("downlink.kafka.bootstrap-servers: k\n"
                + "downlink.kafka.topic-template: device.downlink\n", "n"));
        assertTrue(e.getMessage().startsWith("downlink.kafka.topic-template = 'device.downlink' (from "),
                e.getMessage());
        assertTrue(e.getMessage().contains("has no {node}"), e.getMessage());
        assertTrue(e.getMessage().endsWith("allowed: " + KafkaDownlinkConfigKeys.TOPIC_TEMPLATE.allowed()),
                e.getMessage());
    }

    @Test
    void refusesATemplateThatMakesNoKafkaTopicNameForThisNode() {
        ConfigException e = assertThrows(ConfigException.class, () -> settings("downlink.kafka.bootstrap-servers: k\n"
                + "downlink.kafka.topic-template: \"device downlink {node}\"\n", "gw-1"));
        assertTrue(e.getMessage().contains("'device downlink {node}'"), e.getMessage());
        assertTrue(e.getMessage().contains("makes 'device downlink gw-1' for node 'gw-1', which is not a Kafka topic"),
                e.getMessage());
    }

    @Test
    void wantsTheNodeInTheGroupTemplate() {
        ConfigException e = assertThrows(ConfigException.class, () -> settings("downlink.kafka.bootstrap-servers: k\n"
                + "downlink.kafka.group-id-template: downlink\n", "n"));
        assertTrue(e.getMessage().startsWith("downlink.kafka.group-id-template = 'downlink'"), e.getMessage());
        assertTrue(e.getMessage().contains("allowed: text containing {node}"), e.getMessage());
    }

    @Test
    void namesABadValueWithWhatIsAllowed() {
        ConfigException e = assertThrows(ConfigException.class, () -> settings("downlink.kafka.bootstrap-servers: k\n"
                + "downlink.kafka.max-in-flight: 0\n", "n"));
        assertTrue(e.getMessage().contains("downlink.kafka.max-in-flight") && e.getMessage().contains("'0'")
                && e.getMessage().contains("1 to 1000000"), e.getMessage());
        e = assertThrows(ConfigException.class, () -> settings("downlink.kafka.bootstrap-servers: k\n"
                + "downlink.kafka.auto-offset-reset: none\n", "n"));
        assertTrue(e.getMessage().contains("downlink.kafka.auto-offset-reset") && e.getMessage().contains("'none'")
                && e.getMessage().contains("earliest or latest"), e.getMessage());
    }

    @Test
    void stillRefusesUnknownKeysOutsideTheOpenPrefix() {
        ConfigException e = assertThrows(ConfigException.class, () -> settings("downlink.kafka.bootstrap-servers: k\n"
                + "downlink.kafka.commit-intervall: 5s\n", "n"));
        assertTrue(e.getMessage().contains("did you mean 'downlink.kafka.commit-interval'"), e.getMessage());
    }
}
