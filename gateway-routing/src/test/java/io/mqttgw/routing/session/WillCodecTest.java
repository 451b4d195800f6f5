package io.mqttgw.routing.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mqttgw.core.spi.MessageProperties;
import io.mqttgw.core.spi.UplinkMessage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class WillCodecTest {
    @Test
    void keepsEveryPartOfAWillButItsReceiveTime() {
        MessageProperties properties = new MessageProperties(true, "text/plain", "devices/d1/replies",
                new byte[] {1, 2, 3}, List.of(new MessageProperties.UserProperty("k", "v")));
        UplinkMessage will = new UplinkMessage("d1", "devices/d1/status", 1, true,
                "gone".getBytes(StandardCharsets.UTF_8), 1234L, properties, 600);
        UplinkMessage back = WillCodec.decode(WillCodec.encode(will));
        assertEquals("d1", back.clientId());
        assertEquals("devices/d1/status", back.topic());
        assertEquals(1, back.qos());
        assertEquals(true, back.retain());
        assertArrayEquals(will.payload(), back.payload());
        assertEquals(600, back.expiryInterval());
        assertEquals("text/plain", back.properties().contentType());
        assertEquals("devices/d1/replies", back.properties().responseTopic());
        assertArrayEquals(new byte[] {1, 2, 3}, back.properties().correlationData());
        assertEquals(properties.userProperties(), back.properties().userProperties());
        assertEquals(0L, back.receivedAtMillis(), "stamped when published");
    }

    @Test
    void keepsAWillWithoutExpiryOrProperties() {
        UplinkMessage will = new UplinkMessage("d2", "t", 0, false, new byte[0], 1L);
        UplinkMessage back = WillCodec.decode(WillCodec.encode(will));
        assertEquals(UplinkMessage.NO_EXPIRY, back.expiryInterval());
        assertEquals(MessageProperties.NONE, back.properties());
        assertEquals(0, back.payload().length);
    }

    @Test
    void refusesBytesItDidNotWrite() {
        assertThrows(IllegalArgumentException.class, () -> WillCodec.decode(new byte[] {1, 2}));
    }
}
