package io.mqttgw.kafka.downlink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.DownlinkMessage;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class DownlinkRecordsTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static RecordHeaders headers(String... nameValue) {
        RecordHeaders h = new RecordHeaders();
        for (int i = 0; i < nameValue.length; i += 2) {
            h.add(nameValue[i], b(nameValue[i + 1]));
        }
        return h;
    }

    @Test
    void mapsKeyValueAndEveryHeaderToAMessageForOneDevice() {
        byte[] payload = b("reboot");
        DownlinkRecords.Mapped m = DownlinkRecords.map(b("dev-1"), payload, headers("mqtt.topic",
                "devices/dev-1/commands", "mqtt.qos", "0", "mqtt.retain", "true", "expires.at", "1700000000123"));
        assertNull(m.malformed());
        assertFalse(m.broadcast());
        DownlinkMessage msg = m.message();
        assertEquals("dev-1", msg.clientId());
        assertEquals("devices/dev-1/commands", msg.topic());
        assertEquals(0, msg.qos());
        assertTrue(msg.retain());
        assertEquals(payload, msg.payload(), "the record's array is handed on, not copied");
        assertEquals(1_700_000_000_123L, msg.expiresAtMillis());
    }

    @Test
    void defaultsToQos1NotRetainedNeverExpiring() {
        DownlinkMessage msg = DownlinkRecords.map(b("dev-1"), b("x"), headers("mqtt.topic", "devices/dev-1/c"))
                .message();
        assertEquals(1, msg.qos());
        assertFalse(msg.retain());
        assertEquals(0, msg.expiresAtMillis());
    }

    @Test
    void aStarKeyOrABroadcastHeaderMakesABroadcast() {
        assertTrue(DownlinkRecords.map(b("*"), b("x"), headers("mqtt.topic", "fleet/fw")).broadcast());
        DownlinkRecords.Mapped byHeader = DownlinkRecords.map(null, b("x"), headers("mqtt.topic", "fleet/fw",
                "broadcast", "true"));
        assertTrue(byHeader.broadcast());
        assertEquals("fleet/fw", byHeader.message().topic());
        assertFalse(DownlinkRecords.map(b("dev-1"), b("x"), headers("mqtt.topic", "t", "broadcast", "false"))
                .broadcast());
    }

    @Test
    void aTombstoneIsAnEmptyPayload() {
        assertArrayEquals(new byte[0], DownlinkRecords.map(b("dev-1"), null, headers("mqtt.topic", "t"))
                .message().payload());
    }

    @Test
    void namesWhyARecordIsMalformed() {
        assertEquals(Malformed.MISSING_TOPIC, DownlinkRecords.map(b("dev-1"), b("x"), headers()).malformed());
        assertEquals(Malformed.MISSING_TOPIC, DownlinkRecords.map(b("dev-1"), b("x"), headers("mqtt.topic", ""))
                .malformed());
        assertEquals(Malformed.MISSING_KEY, DownlinkRecords.map(null, b("x"), headers("mqtt.topic", "t"))
                .malformed());
        assertEquals(Malformed.MISSING_KEY, DownlinkRecords.map(b(""), b("x"), headers("mqtt.topic", "t"))
                .malformed());
        assertEquals(Malformed.INVALID_TOPIC, DownlinkRecords.map(b("dev-1"), b("x"), headers("mqtt.topic",
                "devices/+/commands")).malformed());
        assertEquals(Malformed.INVALID_TOPIC, DownlinkRecords.map(b("dev-1"), b("x"), headers("mqtt.topic",
                "devices/#")).malformed());
        for (String qos : new String[] {"3", "-1", "one", ""}) {
            assertEquals(Malformed.BAD_QOS, DownlinkRecords.map(b("dev-1"), b("x"), headers("mqtt.topic", "t",
                    "mqtt.qos", qos)).malformed(), "qos '" + qos + "'");
        }
        assertEquals(Malformed.BAD_RETAIN, DownlinkRecords.map(b("dev-1"), b("x"), headers("mqtt.topic", "t",
                "mqtt.retain", "yes")).malformed());
        assertEquals(Malformed.BAD_EXPIRY, DownlinkRecords.map(b("dev-1"), b("x"), headers("mqtt.topic", "t",
                "expires.at", "tomorrow")).malformed());
        assertEquals(Malformed.BAD_EXPIRY, DownlinkRecords.map(b("dev-1"), b("x"), headers("mqtt.topic", "t",
                "expires.at", "-5")).malformed());
    }

    @Test
    void propertyHeadersBecomeThePublishPropertiesAndExpiresAtStaysTheExpiry() {
        RecordHeaders h = headers("mqtt.topic", "devices/dev-1/cmd", "expires.at", "1700000000000",
                "mqtt.response-topic", "devices/dev-1/reply", "mqtt.content-type", "application/json",
                "mqtt.user.trace", "t-1");
        h.add("mqtt.correlation-data", new byte[] {9, 9});
        DownlinkMessage msg = DownlinkRecords.map(b("dev-1"), b("{}"), h).message();
        assertEquals(1_700_000_000_000L, msg.expiresAtMillis());
        assertEquals("devices/dev-1/reply", msg.properties().responseTopic());
        assertEquals("application/json", msg.properties().contentType());
        assertArrayEquals(new byte[] {9, 9}, msg.properties().correlationData());
        assertEquals(java.util.List.of(new io.mqttgw.core.spi.MessageProperties.UserProperty("trace", "t-1")),
                msg.properties().userProperties());
    }

    @Test
    void aResponseTopicWithWildcardsSkipsTheRecord() {
        assertEquals(Malformed.BAD_PROPERTY, DownlinkRecords.map(b("dev-1"), b("x"), headers("mqtt.topic", "t",
                "mqtt.response-topic", "replies/#")).malformed());
    }
}
