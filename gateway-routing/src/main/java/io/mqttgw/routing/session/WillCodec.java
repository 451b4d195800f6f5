package io.mqttgw.routing.session;

import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.UplinkMessage;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A will as stored in Redis: its MQTT 5.0 message expiry interval (8 bytes, -1 for none) followed by the message as
 * {@link MessageCodec} writes it (client id, topic, QoS, retain, properties, payload). Its receive time is not kept:
 * a will is stamped when it is published.
 */
final class WillCodec {
    private WillCodec() {
    }

    static byte[] encode(UplinkMessage will) {
        byte[] message = MessageCodec.encode(new DownlinkMessage(will.clientId(), will.topic(), will.qos(),
                will.retain(), will.payload(), 0L, will.properties()));
        return ByteBuffer.allocate(8 + message.length).putLong(will.expiryInterval()).put(message).array();
    }

    /** @throws IllegalArgumentException for bytes this version did not write */
    static UplinkMessage decode(byte[] bytes) {
        if (bytes.length < 8) {
            throw new IllegalArgumentException("not a stored will");
        }
        long expiryInterval = ByteBuffer.wrap(bytes).getLong();
        DownlinkMessage m = MessageCodec.decode(Arrays.copyOfRange(bytes, 8, bytes.length));
        return new UplinkMessage(m.clientId(), m.topic(), m.qos(), m.retain(), m.payload(), 0L, m.properties(),
                expiryInterval);
    }
}
