package io.mqttgw.routing.session;

import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.MessageProperties;
import io.mqttgw.core.spi.Subscription;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The binary form of a stored message: version (1), QoS, retain, expiry (8 bytes, epoch ms), client id and topic
 * (each a 2-byte length and UTF-8), then the payload to the end. A message with MQTT 5.0 properties is version 2: after
 * the topic come the payload-format flag (1 byte), content type, response topic (each a 2-byte length, 0xFFFF for none,
 * and UTF-8), correlation data (the same, raw bytes), the number of user properties (2 bytes) and each name and value
 * (2-byte length and UTF-8), then the payload. A message without properties is still written as version 1, so nodes
 * of an older release read what this one stores. Subscriptions are stored as described at
 * {@link #encodeSubscriptions}: U+0000 cannot occur in an MQTT topic filter (MQTT-1.5.3-2).
 */
public final class MessageCodec {
    private static final byte VERSION = 1;
    private static final byte VERSION_WITH_PROPERTIES = 2;
    private static final int ABSENT = 0xFFFF;
    /** The first letter of a subscription stored with MQTT 5.0 options. */
    private static final char OPTIONS = 'A';

    private MessageCodec() {
    }

    public static byte[] encode(DownlinkMessage m) {
        byte[] client = m.clientId() == null ? new byte[0] : m.clientId().getBytes(StandardCharsets.UTF_8);
        byte[] topic = m.topic().getBytes(StandardCharsets.UTF_8);
        byte[] properties = m.properties().isEmpty() ? null : encodeProperties(m.properties());
        ByteBuffer b = ByteBuffer.allocate(1 + 1 + 1 + 8 + 2 + client.length + 2 + topic.length
                + (properties == null ? 0 : properties.length) + m.payload().length);
        b.put(properties == null ? VERSION : VERSION_WITH_PROPERTIES).put((byte) m.qos())
                .put((byte) (m.retain() ? 1 : 0)).putLong(m.expiresAtMillis());
        b.putShort((short) client.length).put(client).putShort((short) topic.length).put(topic);
        if (properties != null) {
            b.put(properties);
        }
        b.put(m.payload());
        return b.array();
    }

    /** @throws IllegalArgumentException for bytes this version did not write */
    public static DownlinkMessage decode(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        byte version = bytes.length < 15 ? 0 : b.get();
        if (version != VERSION && version != VERSION_WITH_PROPERTIES) {
            throw new IllegalArgumentException("not a stored message of format version " + VERSION + " or "
                    + VERSION_WITH_PROPERTIES);
        }
        int qos = b.get();
        boolean retain = b.get() == 1;
        long expiresAt = b.getLong();
        String client = string(b);
        String topic = string(b);
        MessageProperties properties = version == VERSION ? MessageProperties.NONE : decodeProperties(b);
        byte[] payload = new byte[b.remaining()];
        b.get(payload);
        return new DownlinkMessage(client.isEmpty() ? null : client, topic, qos, retain, payload, expiresAt,
                properties);
    }

    private static byte[] encodeProperties(MessageProperties p) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(64);
        out.write(p.utf8Payload() ? 1 : 0);
        writeNullable(out, p.contentType() == null ? null : p.contentType().getBytes(StandardCharsets.UTF_8));
        writeNullable(out, p.responseTopic() == null ? null : p.responseTopic().getBytes(StandardCharsets.UTF_8));
        writeNullable(out, p.correlationData());
        List<MessageProperties.UserProperty> users = p.userProperties();
        writeShort(out, users.size());
        for (MessageProperties.UserProperty u : users) {
            writeNullable(out, u.name().getBytes(StandardCharsets.UTF_8));
            writeNullable(out, u.value().getBytes(StandardCharsets.UTF_8));
        }
        return out.toByteArray();
    }

    private static MessageProperties decodeProperties(ByteBuffer b) {
        boolean utf8 = b.get() == 1;
        byte[] contentType = nullable(b);
        byte[] responseTopic = nullable(b);
        byte[] correlation = nullable(b);
        int count = b.getShort() & 0xFFFF;
        List<MessageProperties.UserProperty> users = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            users.add(new MessageProperties.UserProperty(string(b), string(b)));
        }
        return new MessageProperties(utf8, text(contentType), text(responseTopic), correlation, users);
    }

    private static void writeNullable(java.io.ByteArrayOutputStream out, byte[] bytes) {
        if (bytes == null) {
            writeShort(out, ABSENT);
        } else {
            // MQTT strings and binary data are at most 65,535 bytes; a property longer would not have been decoded
            writeShort(out, bytes.length);
            out.writeBytes(bytes);
        }
    }

    private static void writeShort(java.io.ByteArrayOutputStream out, int value) {
        out.write(value >> 8);
        out.write(value);
    }

    private static byte[] nullable(ByteBuffer b) {
        int length = b.getShort() & 0xFFFF;
        if (length == ABSENT) {
            return null;
        }
        byte[] bytes = new byte[length];
        b.get(bytes);
        return bytes;
    }

    private static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    private static String string(ByteBuffer b) {
        byte[] s = new byte[b.getShort() & 0xFFFF];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }

    /**
     * A subscription with default options (every MQTT 3.1.1 one) is {@code <qos digit><filter>\0}, as before MQTT 5.0.
     * One with MQTT 5.0 options starts with a letter from {@code A} holding QoS, retain as published and retain
     * handling as bits, then its identifier in decimal and a space, then the filter and {@code \0} (the digits never
     * hold a space, so a filter may start with one).
     */
    public static byte[] encodeSubscriptions(Map<String, Subscription> subscriptions) {
        StringBuilder s = new StringBuilder();
        subscriptions.forEach((filter, sub) -> {
            if (sub.qosOnly()) {
                s.append((char) ('0' + sub.qos()));
            } else {
                int bits = sub.qos() | (sub.retainAsPublished() ? 4 : 0) | sub.retainHandling() << 3;
                s.append((char) (OPTIONS + bits)).append(sub.identifier()).append(' ');
            }
            s.append(filter).append('\0');
        });
        return s.toString().getBytes(StandardCharsets.UTF_8);
    }

    public static Map<String, Subscription> decodeSubscriptions(byte[] bytes) {
        Map<String, Subscription> subscriptions = new LinkedHashMap<>();
        if (bytes == null) {
            return subscriptions;
        }
        String s = new String(bytes, StandardCharsets.UTF_8);
        int start = 0;
        for (int end = s.indexOf('\0'); end >= 0; start = end + 1, end = s.indexOf('\0', start)) {
            if (end <= start) {
                continue;
            }
            char first = s.charAt(start);
            if (first >= '0' && first <= '2') {
                subscriptions.put(s.substring(start + 1, end), Subscription.ofQos(first - '0'));
                continue;
            }
            int bits = first - OPTIONS;
            int space = s.indexOf(' ', start + 1);
            if (bits < 0 || bits > 0x17 || space < 0 || space > end) {
                throw new IllegalArgumentException("not a stored subscription: " + s.substring(start, end));
            }
            int identifier = Integer.parseInt(s, start + 1, space, 10);
            subscriptions.put(s.substring(space + 1, end),
                    Subscription.of(bits & 3, (bits & 4) != 0, bits >> 3, identifier));
        }
        return subscriptions;
    }
}
