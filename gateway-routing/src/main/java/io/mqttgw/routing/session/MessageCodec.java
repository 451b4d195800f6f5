package io.mqttgw.routing.session;

import io.mqttgw.core.spi.DownlinkMessage;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The binary form of a stored message: version (1), QoS, retain, expiry (8 bytes, epoch ms), client id and topic
 * (each a 2-byte length and UTF-8), then the payload to the end. Subscriptions are stored as
 * {@code <qos digit><filter>\0} repeated: U+0000 cannot occur in an MQTT topic filter (MQTT-1.5.3-2).
 */
public final class MessageCodec {
    private static final byte VERSION = 1;

    private MessageCodec() {
    }

    public static byte[] encode(DownlinkMessage m) {
        byte[] client = m.clientId() == null ? new byte[0] : m.clientId().getBytes(StandardCharsets.UTF_8);
        byte[] topic = m.topic().getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(1 + 1 + 1 + 8 + 2 + client.length + 2 + topic.length
                + m.payload().length);
        b.put(VERSION).put((byte) m.qos()).put((byte) (m.retain() ? 1 : 0)).putLong(m.expiresAtMillis());
        b.putShort((short) client.length).put(client).putShort((short) topic.length).put(topic).put(m.payload());
        return b.array();
    }

    /** @throws IllegalArgumentException for bytes this version did not write */
    public static DownlinkMessage decode(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        if (bytes.length < 15 || b.get() != VERSION) {
            throw new IllegalArgumentException("not a stored message of format version " + VERSION);
        }
        int qos = b.get();
        boolean retain = b.get() == 1;
        long expiresAt = b.getLong();
        String client = string(b);
        String topic = string(b);
        byte[] payload = new byte[b.remaining()];
        b.get(payload);
        return new DownlinkMessage(client.isEmpty() ? null : client, topic, qos, retain, payload, expiresAt);
    }

    private static String string(ByteBuffer b) {
        byte[] s = new byte[b.getShort() & 0xFFFF];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }

    public static byte[] encodeSubscriptions(Map<String, Integer> subscriptions) {
        StringBuilder s = new StringBuilder();
        subscriptions.forEach((filter, qos) -> s.append((char) ('0' + qos)).append(filter).append('\0'));
        return s.toString().getBytes(StandardCharsets.UTF_8);
    }

    public static Map<String, Integer> decodeSubscriptions(byte[] bytes) {
        Map<String, Integer> subscriptions = new LinkedHashMap<>();
        if (bytes == null) {
            return subscriptions;
        }
        String s = new String(bytes, StandardCharsets.UTF_8);
        int start = 0;
        for (int end = s.indexOf('\0'); end >= 0; start = end + 1, end = s.indexOf('\0', start)) {
            if (end > start) {
                subscriptions.put(s.substring(start + 1, end), s.charAt(start) - '0');
            }
        }
        return subscriptions;
    }
}
