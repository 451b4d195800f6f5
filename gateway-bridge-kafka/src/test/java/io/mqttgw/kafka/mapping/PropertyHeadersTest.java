package io.mqttgw.kafka.mapping;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.MessageProperties;
import io.mqttgw.core.spi.MessageProperties.UserProperty;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class PropertyHeadersTest {
    private static final MessageProperties REQUEST = new MessageProperties(true, "application/json",
            "replies/dev-1", new byte[] {0, (byte) 0xFF, 7}, List.of(new UserProperty("trace", "a"),
            new UserProperty("tenant", "ünï"), new UserProperty("trace", "b")));

    @Test
    void writesEveryPropertyUnderItsDocumentedHeader() {
        RecordHeaders headers = new RecordHeaders();
        PropertyHeaders.write(REQUEST, headers);
        List<String> names = new ArrayList<>();
        for (Header h : headers) {
            names.add(h.key() + "=" + (h.key().equals("mqtt.correlation-data") ? "bytes"
                    : new String(h.value(), StandardCharsets.UTF_8)));
        }
        assertEquals(List.of("mqtt.payload-format=utf-8", "mqtt.content-type=application/json",
                "mqtt.response-topic=replies/dev-1", "mqtt.correlation-data=bytes", "mqtt.user.trace=a",
                "mqtt.user.tenant=ünï", "mqtt.user.trace=b"), names);
        assertArrayEquals(new byte[] {0, (byte) 0xFF, 7}, headers.lastHeader("mqtt.correlation-data").value(),
                "correlation data travels as the raw bytes");
    }

    @Test
    void aMessageWithoutPropertiesAddsNoHeader() {
        RecordHeaders headers = new RecordHeaders();
        PropertyHeaders.write(MessageProperties.NONE, headers);
        assertFalse(headers.iterator().hasNext());
    }

    @Test
    void readsBackWhatItWrote() {
        RecordHeaders headers = new RecordHeaders();
        headers.add("mqtt.topic", "cmd/x".getBytes(StandardCharsets.UTF_8));
        headers.add("expires.at", "123".getBytes(StandardCharsets.UTF_8));
        PropertyHeaders.write(REQUEST, headers);
        MessageProperties back = PropertyHeaders.read(headers);
        assertTrue(back.utf8Payload());
        assertEquals(REQUEST.contentType(), back.contentType());
        assertEquals(REQUEST.responseTopic(), back.responseTopic());
        assertArrayEquals(REQUEST.correlationData(), back.correlationData());
        assertEquals(REQUEST.userProperties(), back.userProperties(), "order and repeated names kept");
    }

    @Test
    void recordsWithoutPropertyHeadersShareNone() {
        RecordHeaders headers = new RecordHeaders();
        headers.add("mqtt.topic", "cmd/x".getBytes(StandardCharsets.UTF_8));
        headers.add("mqtt.qos", "1".getBytes(StandardCharsets.UTF_8));
        assertSame(MessageProperties.NONE, PropertyHeaders.read(headers));
    }

    @Test
    void refusesAResponseTopicWithWildcardsAndAnUnknownPayloadFormat() {
        for (String[] bad : new String[][] {{"mqtt.response-topic", "replies/+"}, {"mqtt.response-topic", "r/#"},
                {"mqtt.response-topic", ""}, {"mqtt.payload-format", "latin-1"}}) {
            RecordHeaders headers = new RecordHeaders();
            headers.add(bad[0], bad[1].getBytes(StandardCharsets.UTF_8));
            assertNull(PropertyHeaders.read(headers), bad[0] + "=" + bad[1]);
        }
        RecordHeaders one = new RecordHeaders();
        one.add("mqtt.payload-format", "1".getBytes(StandardCharsets.UTF_8));
        assertTrue(PropertyHeaders.read(one).utf8Payload(), "the MQTT value 1 is taken too");
    }
}
