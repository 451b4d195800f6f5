package io.mqttgw.kafka.uplink;

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

class KafkaUplinkSettingsTest {
    @TempDir
    Path dir;

    private ConfigValues load(String yaml, Properties props) throws Exception {
        return new ConfigLoader(ConfigLoader.withCoreKeys(KafkaConfigKeys.ALL), List.of(KafkaConfigKeys.PRODUCER),
                Map.of(), props).load(Files.writeString(dir.resolve("g.yaml"), yaml));
    }

    private KafkaUplinkSettings settings(String yaml) throws Exception {
        return KafkaUplinkSettings.from(load(yaml, new Properties()));
    }

    @Test
    void buildsProducerPropertiesThatNeverBlockAndPassOthersThrough() throws Exception {
        Properties sys = new Properties();
        sys.setProperty("mqttgw.uplink.kafka.producer.max.request.size", "2097152");
        KafkaUplinkSettings s = KafkaUplinkSettings.from(load("uplink.kafka.bootstrap-servers: k1:9092\n"
                + "uplink:\n  kafka:\n    producer:\n      max.block.ms: 60000\n      client.rack: r1\n", sys));
        Properties p = s.producerProperties("mqttgw-n1");
        assertEquals("0", p.get("max.block.ms"), "the gateway owns max.block.ms");
        assertEquals("r1", p.get("client.rack"));
        assertEquals("2097152", p.get("max.request.size"));
        assertEquals("k1:9092", p.get("bootstrap.servers"));
        assertEquals("10", p.get("linger.ms"));
        assertEquals("snappy", p.get("compression.type"));
    }

    @Test
    void isDurableByDefaultAcksAllWithIdempotenceAndAtMostFiveRequestsInFlight() throws Exception {
        Properties p = settings("uplink.kafka.bootstrap-servers: k\n").producerProperties("c");
        assertEquals("all", p.get("acks"));
        assertEquals("true", p.get("enable.idempotence"));
        assertEquals("5", p.get("max.in.flight.requests.per.connection"));
    }

    @Test
    void theFastProfileAcks1TurnsIdempotenceOff() throws Exception {
        Properties p = settings("uplink.kafka.bootstrap-servers: k\nuplink.kafka.acks: 1\n").producerProperties("c");
        assertEquals("1", p.get("acks"));
        assertEquals("false", p.get("enable.idempotence"));
        assertEquals(null, p.get("max.in.flight.requests.per.connection"), "the producer's own default");
    }

    @Test
    void refusesMoreThanFiveRequestsInFlightWithAcksAllNamingTheKey() {
        ConfigException e = assertThrows(ConfigException.class, () -> settings("uplink.kafka.bootstrap-servers: k\n"
                + "uplink:\n  kafka:\n    producer:\n      max.in.flight.requests.per.connection: 10\n"));
        assertTrue(e.getMessage().startsWith("uplink.kafka.producer.max.in.flight.requests.per.connection = '10' "
                + "is not allowed while uplink.kafka.acks is all"), e.getMessage());
    }

    @Test
    void keepsAPassedThroughInFlightLimitWithinTheIdempotentRange() throws Exception {
        Properties p = settings("uplink.kafka.bootstrap-servers: k\n"
                + "uplink:\n  kafka:\n    producer:\n      max.in.flight.requests.per.connection: 2\n")
                .producerProperties("c");
        assertEquals("2", p.get("max.in.flight.requests.per.connection"));
    }

    @Test
    void requiresBootstrapServers() {
        ConfigException e = assertThrows(ConfigException.class, () -> settings("uplink.kafka.acks: all\n"));
        assertTrue(e.getMessage().startsWith("uplink.kafka.bootstrap-servers is required"), e.getMessage());
    }

    @Test
    void wantsPendingBytesBelowTheProducerBuffer() {
        ConfigException e = assertThrows(ConfigException.class, () -> settings("uplink.kafka.bootstrap-servers: k\n"
                + "uplink.kafka.max-pending-bytes: 64MiB\n"));
        assertTrue(e.getMessage().contains("is not below uplink.kafka.buffer-memory"), e.getMessage());
    }

    @Test
    void wantsTheDeliveryTimeoutToCoverLingerAndRequest() {
        ConfigException e = assertThrows(ConfigException.class, () -> settings("uplink.kafka.bootstrap-servers: k\n"
                + "uplink.kafka.delivery-timeout: 5s\nuplink.kafka.request-timeout: 10s\n"));
        assertTrue(e.getMessage().contains("is shorter than uplink.kafka.linger plus uplink.kafka.request-timeout"),
                e.getMessage());
    }

    @Test
    void namesABadTopicRule() {
        ConfigException e = assertThrows(ConfigException.class, () -> settings("uplink.kafka.bootstrap-servers: k\n"
                + "uplink.kafka.topic-rules: [\"devices/#/x=t\"]\n"));
        assertTrue(e.getMessage().startsWith("uplink.kafka.topic-rules"), e.getMessage());
    }

    @Test
    void stillRefusesUnknownKeysOutsideTheOpenPrefix() {
        ConfigException e = assertThrows(ConfigException.class, () -> settings("uplink.kafka.bootstrap-servers: k\n"
                + "uplink.kafka.lingr: 5ms\n"));
        assertTrue(e.getMessage().contains("did you mean 'uplink.kafka.linger'"), e.getMessage());
    }
}
