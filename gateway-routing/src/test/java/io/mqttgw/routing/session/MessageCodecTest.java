package io.mqttgw.routing.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.MessageProperties;
import io.mqttgw.core.spi.Subscription;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
        Map<String, Subscription> subs = new LinkedHashMap<>();
        subs.put("z/#", Subscription.ofQos(1));
        subs.put("devices/dev-1/commands", Subscription.ofQos(2));
        subs.put("a/+/b", Subscription.ofQos(0));
        subs.put("ünï/cödé", Subscription.ofQos(1));
        subs.put("#", Subscription.ofQos(0));
        Map<String, Subscription> back = MessageCodec.decodeSubscriptions(MessageCodec.encodeSubscriptions(subs));
        assertEquals(new ArrayList<>(subs.entrySet()), new ArrayList<>(back.entrySet()));
    }

    @Test
    void noSubscriptionsDecodeAsAnEmptyMap() {
        assertTrue(MessageCodec.decodeSubscriptions(null).isEmpty());
        assertTrue(MessageCodec.decodeSubscriptions(new byte[0]).isEmpty());
        assertTrue(MessageCodec.decodeSubscriptions(MessageCodec.encodeSubscriptions(Map.of())).isEmpty());
        assertEquals(0, MessageCodec.encodeSubscriptions(Map.of()).length);
        assertEquals("1a/b\0", new String(MessageCodec.encodeSubscriptions(Map.of("a/b", Subscription.ofQos(1))),
                StandardCharsets.UTF_8));
    }

    @Test
    void mqtt5SubscriptionOptionsSurviveTheRoundTripBesideQosOnlyOnes() {
        Map<String, Subscription> subs = new LinkedHashMap<>();
        subs.put("plain/#", Subscription.ofQos(1));
        subs.put(" starts with a space/+", Subscription.of(2, true, 2, 268_435_455));
        subs.put("12/digits/first", Subscription.of(0, false, 1, 7));
        subs.put("rap/only", Subscription.of(1, true, 0, 0));
        Map<String, Subscription> back = MessageCodec.decodeSubscriptions(MessageCodec.encodeSubscriptions(subs));
        assertEquals(new ArrayList<>(subs.entrySet()), new ArrayList<>(back.entrySet()));
        org.junit.jupiter.api.Assertions.assertSame(Subscription.ofQos(1), back.get("plain/#"),
                "a QoS-only subscription decodes to the shared constant");
    }

    @Test
    void aMessageWithPropertiesSurvivesTheRoundTripAndOneWithoutKeepsFormatVersion1() {
        MessageProperties props = new MessageProperties(true, "application/json", "replies/dev-1",
                new byte[] {0, 1, (byte) 0xFF}, List.of(new MessageProperties.UserProperty("trace", "ab-1"),
                new MessageProperties.UserProperty("trace", "ünï")));
        DownlinkMessage m = new DownlinkMessage("dev-1", "cmd/dev-1", 1, false, "{}".getBytes(StandardCharsets.UTF_8),
                1234L, props);
        DownlinkMessage back = MessageCodec.decode(MessageCodec.encode(m));
        assertEquals(props.contentType(), back.properties().contentType());
        assertEquals(props.responseTopic(), back.properties().responseTopic());
        assertArrayEquals(props.correlationData(), back.properties().correlationData());
        assertEquals(props.userProperties(), back.properties().userProperties());
        assertTrue(back.properties().utf8Payload());
        assertEquals("{}", new String(back.payload(), StandardCharsets.UTF_8));
        assertEquals(1234L, back.expiresAtMillis());

        DownlinkMessage plain = new DownlinkMessage("dev-1", "cmd/dev-1", 1, false, new byte[] {9}, 0L);
        assertEquals(1, MessageCodec.encode(plain)[0], "no properties: the format older nodes read");
        org.junit.jupiter.api.Assertions.assertSame(MessageProperties.NONE,
                MessageCodec.decode(MessageCodec.encode(plain)).properties());
    }
}
