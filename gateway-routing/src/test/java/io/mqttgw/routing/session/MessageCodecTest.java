package io.mqttgw.routing.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.DownlinkMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MessageCodecTest {

    static void assertSame(DownlinkMessage expected, DownlinkMessage actual) {
        assertEquals(expected.clientId(), actual.clientId());
        assertEquals(expected.topic(), actual.topic());
        assertEquals(expected.qos(), actual.qos());
        assertEquals(expected.retain(), actual.retain());
        assertArrayEquals(expected.payload(), actual.payload());
        assertEquals(expected.expiresAtMillis(), actual.expiresAtMillis());
    }

    @Test
    void aMessageSurvivesTheRoundTripWithEveryField() {
        DownlinkMessage m = new DownlinkMessage("dev-ü", "devices/dev-ü/commands/😀", 2, true,
                new byte[] {0, 1, (byte) 0xFF, 0x7F}, 4_102_444_800_123L);
        assertSame(m, MessageCodec.decode(MessageCodec.encode(m)));
    }

    @Test
    void aBroadcastWithoutClientIdAndAnEmptyPayloadSurviveTheRoundTrip() {
        DownlinkMessage m = new DownlinkMessage(null, "fleet/a/config", 0, false, new byte[0]);
        DownlinkMessage back = MessageCodec.decode(MessageCodec.encode(m));
        assertNull(back.clientId());
        assertSame(m, back);
    }

    @Test
    void aLongPayloadAndATopicOfMoreThan32767BytesSurviveTheRoundTrip() {
        byte[] payload = new byte[256 * 1024];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) i;
        }
        String topic = "t/" + "x".repeat(40_000);
        DownlinkMessage m = new DownlinkMessage("c", topic, 1, false, payload);
        assertSame(m, MessageCodec.decode(MessageCodec.encode(m)));
    }

    @Test
    void bytesOfAnotherFormatAreRefused() {
        byte[] encoded = MessageCodec.encode(new DownlinkMessage("c", "t", 1, false, new byte[] {1}));
        encoded[0] = 9;
        assertThrows(IllegalArgumentException.class, () -> MessageCodec.decode(encoded));
        assertThrows(IllegalArgumentException.class, () -> MessageCodec.decode(new byte[3]));
        assertThrows(IllegalArgumentException.class, () -> MessageCodec.decode(new byte[0]));
    }

    @Test
    void subscriptionsSurviveTheRoundTripInOrder() {
        Map<String, Integer> subs = new LinkedHashMap<>();
        subs.put("z/#", 1);
        subs.put("devices/dev-1/commands", 2);
        subs.put("a/+/b", 0);
        subs.put("ünï/cödé", 1);
        subs.put("#", 0);
        Map<String, Integer> back = MessageCodec.decodeSubscriptions(MessageCodec.encodeSubscriptions(subs));
        assertEquals(new ArrayList<>(subs.entrySet()), new ArrayList<>(back.entrySet()));
    }

    @Test
    void noSubscriptionsDecodeAsAnEmptyMap() {
        assertTrue(MessageCodec.decodeSubscriptions(null).isEmpty());
        assertTrue(MessageCodec.decodeSubscriptions(new byte[0]).isEmpty());
        assertTrue(MessageCodec.decodeSubscriptions(MessageCodec.encodeSubscriptions(Map.of())).isEmpty());
        assertEquals(0, MessageCodec.encodeSubscriptions(Map.of()).length);
        assertEquals("1a/b\0", new String(MessageCodec.encodeSubscriptions(Map.of("a/b", 1)),
                StandardCharsets.UTF_8));
    }
}
