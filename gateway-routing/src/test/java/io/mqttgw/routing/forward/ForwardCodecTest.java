package io.mqttgw.routing.forward;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.core.spi.MessageProperties;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ForwardCodecTest {

    @Test
    void downlinkRequestKeepsEveryPayloadByteAndTheProperties() {
        byte[] payload = new byte[300];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) i;
        }
        MessageProperties properties = new MessageProperties(false, "application/octet-stream", "reply/to",
                new byte[] {0, -1}, List.of(new MessageProperties.UserProperty("trace", "é")));
        DownlinkMessage m = new DownlinkMessage("dev-ü/1", "devices/1/cmd", 1, true, payload, 1234L, properties);

        ForwardCodec.Request r = ForwardCodec.request(ForwardCodec.downlink(-7L, 2500, "node-b", m));

        assertEquals(ForwardCodec.DOWNLINK, r.kind());
        assertEquals(-7L, r.id());
        assertEquals(2500, r.timeoutMillis());
        assertEquals("node-b", r.replyTo());
        assertEquals("dev-ü/1", r.clientId());
        assertEquals("devices/1/cmd", r.message().topic());
        assertEquals(1, r.message().qos());
        assertTrue(r.message().retain());
        assertEquals(1234L, r.message().expiresAtMillis());
        assertArrayEquals(payload, r.message().payload());
        assertEquals("reply/to", r.message().properties().responseTopic());
        assertEquals("é", r.message().properties().userProperties().get(0).value());
    }

    @Test
    void kickRequestRoundTrips() {
        ForwardCodec.Request r = ForwardCodec.request(ForwardCodec.kick(42L, 10_000, "node-b", "pump-1", true));

        assertEquals(ForwardCodec.KICK, r.kind());
        assertEquals(42L, r.id());
        assertEquals("pump-1", r.clientId());
        assertTrue(r.discardSession());
        assertNull(r.message());
    }

    @Test
    void everyReplyStatusRoundTrips() {
        ForwardCodec.Reply d = ForwardCodec.reply(ForwardCodec.downlinkReply(1L, "node-a",
                new DownlinkTarget.Report(DownlinkTarget.Outcome.DELIVERED, DownlinkTarget.Retained.STORED)));
        assertEquals(DownlinkTarget.Outcome.DELIVERED, d.outcome());
        assertEquals(DownlinkTarget.Retained.STORED, d.retained());
        assertEquals("node-a", d.nodeId());

        ForwardCodec.Reply noRetained = ForwardCodec.reply(ForwardCodec.downlinkReply(2L, "node-a",
                new DownlinkTarget.Report(DownlinkTarget.Outcome.NOT_SUBSCRIBED, null)));
        assertNull(noRetained.retained());

        ForwardCodec.Reply k = ForwardCodec.reply(ForwardCodec.kickReply(3L, "node-a", true, false));
        assertEquals(ForwardCodec.KICK, k.status());
        assertTrue(k.closed());
        assertFalse(k.sessionDiscarded());

        assertEquals(ForwardCodec.NOT_HERE, ForwardCodec.reply(ForwardCodec.notHere(4L, "node-a")).status());
        ForwardCodec.Reply busy = ForwardCodec.reply(ForwardCodec.refusal(5L, "node-a", ForwardCodec.BUSY, "full"));
        assertEquals(ForwardCodec.BUSY, busy.status());
        assertEquals("full", busy.reason());
        assertEquals(5L, busy.id());
    }

    @Test
    void malformedMessagesParseToNullInsteadOfThrowing() {
        byte[] request = ForwardCodec.kick(42L, 10_000, "node-b", "pump-1", false);
        byte[] reply = ForwardCodec.kickReply(3L, "node-a", true, false);
        for (int n = 0; n < request.length; n++) {
            assertNull(ForwardCodec.request(Arrays.copyOf(request, n)), "request cut at " + n);
        }
        for (int n = 0; n < reply.length; n++) {
            assertNull(ForwardCodec.reply(Arrays.copyOf(reply, n)), "reply cut at " + n);
        }
        assertNull(ForwardCodec.request("hello".getBytes(StandardCharsets.UTF_8)), "another version");
        assertNull(ForwardCodec.reply(new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 1, 'a', 'D', 0, 3, 'F', 'O', 'O',
            0, 0}), "an outcome this version does not know");
        byte[] trailing = Arrays.copyOf(reply, reply.length + 1);
        assertNull(ForwardCodec.reply(trailing), "bytes after the end");
        byte[] badUtf8 = ForwardCodec.kick(42L, 10_000, "node-b", "pump-1", false);
        badUtf8[badUtf8.length - 1] = (byte) 0xFF;
        assertNull(ForwardCodec.request(badUtf8), "a client id that is not UTF-8");
    }
}
