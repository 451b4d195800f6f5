package io.mqttgw.bench.producer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ProducerRateTest {
    @Test
    void makesPayloadsOfTheFieldProfilesExactSizesThatDiffer() {
        SplittableRandom random = new SplittableRandom(1);
        byte[] a = ProducerRate.payload(random, ProducerRate.STATUS_BYTES);
        byte[] b = ProducerRate.payload(random, ProducerRate.STATUS_BYTES);
        assertEquals(500, a.length);
        assertEquals(20, ProducerRate.payload(random, ProducerRate.HEARTBEAT_BYTES).length);
        assertTrue(!new String(a, StandardCharsets.US_ASCII).equals(new String(b, StandardCharsets.US_ASCII)));
        assertEquals('}', a[a.length - 1]);
    }

    @Test
    void readsRatesDurationsAndGatewayKeysFromTheCommandLine() {
        ProducerRate.Options o = ProducerRate.Options.parse(new String[] {"--bootstrap", "127.0.0.1:9092",
            "--rates", "5000, 80000", "--warmup", "500ms", "--window", "2m", "--set",
            "uplink.kafka.linger=5ms", "--broker-pid", "42"});
        assertEquals(List.of(5000, 80000), o.rates());
        assertEquals(Duration.ofMillis(500), o.warmup());
        assertEquals(Duration.ofMinutes(2), o.window());
        assertEquals(42, o.brokerPid());
        assertEquals(2, o.senders());
        assertEquals(100_000, o.devices());
        assertEquals(Map.of("uplink.kafka.linger", "5ms"), o.settings());
        Properties p = ProducerRate.gatewayProperties(o);
        assertEquals("5ms", p.getProperty("mqttgw.uplink.kafka.linger"));
        assertEquals("devices/{id}/heartbeat=device.heartbeat,devices/+/status=device.status",
                p.getProperty("mqttgw.uplink.kafka.topic-rules"));
        assertEquals("60000", p.getProperty("mqttgw.uplink.kafka.producer.metrics.sample.window.ms"));
    }

    @Test
    void refusesUnknownOptionsAndAMissingBroker() {
        assertThrows(IllegalArgumentException.class, () -> ProducerRate.Options.parse(new String[] {"--rates", "1"}));
        assertThrows(IllegalArgumentException.class, () -> ProducerRate.Options.parse(new String[] {"--bootstrap",
            "x:1", "--rate", "5"}));
    }
}
