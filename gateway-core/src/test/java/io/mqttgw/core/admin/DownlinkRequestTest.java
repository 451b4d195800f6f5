package io.mqttgw.core.admin;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.mqttgw.core.protocol.TopicLimits;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
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
}
