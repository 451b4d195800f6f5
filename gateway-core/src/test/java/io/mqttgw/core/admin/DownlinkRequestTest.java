package io.mqttgw.core.admin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.topic.TopicLimits;
import io.mqttgw.core.spi.MessageProperties;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class DownlinkRequestTest {
    private static DownlinkRequest parse(String uri, boolean broadcast) {
        ByteBuf body = Unpooled.copiedBuffer("cmd", StandardCharsets.UTF_8);
        try {
            return DownlinkRequest.parse(new QueryStringDecoder(uri), body, broadcast, TopicLimits.DEFAULT);
        } finally {
            body.release();
        }
    }

    @Test
    void readsAMessageForOneDevice() {
        DownlinkRequest r = parse("/downlink?client=dev-1&topic=devices/dev-1/commands&qos=2&retain=true", false);
        assertNull(r.refusal());
        assertEquals("dev-1", r.message().clientId());
        assertEquals("devices/dev-1/commands", r.message().topic());
        assertEquals(2, r.message().qos());
        assertEquals(true, r.message().retain());
        assertArrayEquals("cmd".getBytes(StandardCharsets.UTF_8), r.message().payload());
        assertEquals(1, parse("/downlink?client=d&topic=t", false).message().qos(), "QoS 1 when absent");
    }

    @Test
    void refusesWhatTheKafkaPathRefuses() {
        for (String bad : new String[] {"/downlink?topic=t", "/downlink?client=&topic=t", "/downlink?client=d",
                "/downlink?client=d&topic=", "/downlink?client=d&topic=a/%2B/b", "/downlink?client=d&topic=a/%23",
                "/downlink?client=d&topic=a%00b", "/downlink?client=d&topic=t&qos=3",
                "/downlink?client=d&topic=t&qos=-1", "/downlink?client=d&topic=t&qos=01",
                "/downlink?client=d&topic=t&retain=1", "/downlink?client=d&topic=" + "x".repeat(1025),
                "/downlink?client=d&topic=" + "a/".repeat(16) + "a"}) {
            DownlinkRequest r = parse(bad, false);
            assertNotNull(r.refusal(), bad);
            assertNull(r.message(), bad);
        }
        assertNull(parse("/downlink?client=d&topic=" + "x".repeat(1024), false).refusal(), "at the length limit");
        assertNull(parse("/downlink?client=d&topic=" + "a/".repeat(15) + "a", false).refusal(), "at the level limit");
    }

    @Test
    void needsNoClientForABroadcast() {
        DownlinkRequest r = parse("/downlink/broadcast?topic=fleet/a&qos=0", true);
        assertNull(r.refusal());
        assertNull(r.message().clientId());
        assertNotNull(parse("/downlink/broadcast?topic=fleet/%23", true).refusal());
    }

    @Test
    void readsEveryMqtt5PropertyWithUserPropertiesInTheOrderGiven() {
        ByteBuf body = Unpooled.copiedBuffer("cmd", StandardCharsets.UTF_8);
        DownlinkRequest r = DownlinkRequest.parse(new QueryStringDecoder("/downlink?client=d&topic=t&expiry=60"
                + "&user.b=2&content-type=text%2Fplain&user.a=x%20y&response-topic=devices/d/replies"
                + "&correlation-data=AAEC_w&payload-format=utf-8&user.b=3"), body, false, TopicLimits.DEFAULT,
                1_000_000L);
        body.release();
        assertNull(r.refusal());
        MessageProperties p = r.message().properties();
        assertEquals(1_060_000L, r.message().expiresAtMillis());
        assertEquals("text/plain", p.contentType());
        assertEquals("devices/d/replies", p.responseTopic());
        assertArrayEquals(new byte[] {0, 1, 2, (byte) 0xFF}, p.correlationData());
        assertTrue(p.utf8Payload());
        assertEquals(List.of(new MessageProperties.UserProperty("b", "2"), new MessageProperties.UserProperty("a",
                "x y"),
                new MessageProperties.UserProperty("b", "3")), p.userProperties());
        assertArrayEquals(new byte[] {0, 1, 2, (byte) 0xFF},
                parse("/downlink?client=d&topic=t&correlation-data=AAEC/w==", false).message().properties()
                        .correlationData(), "the standard alphabet with padding too");
        assertArrayEquals(new byte[] {(byte) 0xFB, (byte) 0xEF},
                parse("/downlink?client=d&topic=t&correlation-data=++8", false).message().properties()
                        .correlationData(), "an unescaped + read as the space it decodes to");
    }

    @Test
    void sendsNoPropertiesAndNoExpiryWhenNoneIsAsked() {
        DownlinkRequest r = parse("/downlink?client=d&topic=t", false);
        assertSame(MessageProperties.NONE, r.message().properties());
        assertEquals(0L, r.message().expiresAtMillis());
    }

    @Test
    void refusesAnUnknownParameterByName() {
        DownlinkRequest r = parse("/downlink?client=d&topic=t&expiry=60&user.k=v&exipry=5", false);
        assertNull(r.message());
        assertTrue(r.refusal().contains("'exipry'"), r.refusal());
        assertTrue(parse("/downlink?client=d&topic=t&Topic=u", false).refusal().contains("'Topic'"));
        assertTrue(parse("/downlink?client=d&topic=t&flag", false).refusal().contains("'flag'"));
    }

    @Test
    void refusesUnusablePropertiesAndRepeatedParameters() {
        for (String bad : new String[] {"&expiry=0", "&expiry=-1", "&expiry=4294967296", "&expiry=1m", "&expiry=",
                "&response-topic=a/%2B", "&response-topic=", "&response-topic=" + "a/".repeat(16) + "a",
                "&correlation-data=%%%", "&correlation-data=A", "&payload-format=ascii", "&content-type=a%00b",
                "&user.=v", "&user.k=a%00", "&topic=u", "&qos=1&qos=2", "&client=e"}) {
            DownlinkRequest r = parse("/downlink?client=d&topic=t" + bad, false);
            assertNotNull(r.refusal(), bad);
            assertNull(r.message(), bad);
        }
        assertNull(parse("/downlink?client=d&topic=t&expiry=4294967295", false).refusal(), "the largest expiry");
    }

    @Test
    void refusesABodyMarkedUtf8ThatIsNot() {
        ByteBuf body = Unpooled.wrappedBuffer(new byte[] {(byte) 0xC3, 0x28});
        DownlinkRequest r = DownlinkRequest.parse(
                new QueryStringDecoder("/downlink?client=d&topic=t&payload-format=1"),
                body, false, TopicLimits.DEFAULT);
        try {
            assertNotNull(r.refusal());
            assertNull(DownlinkRequest.parse(new QueryStringDecoder("/downlink?client=d&topic=t&payload-format=0"),
                    body, false, TopicLimits.DEFAULT).refusal());
        } finally {
            body.release();
        }
    }

    @Test
    void refusesAClientOnABroadcastItWouldIgnore() {
        assertNotNull(parse("/downlink/broadcast?topic=fleet/a&client=d", true).refusal());
    }
}
