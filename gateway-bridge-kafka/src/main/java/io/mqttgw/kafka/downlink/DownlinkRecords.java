package io.mqttgw.kafka.downlink;

import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.MessageProperties;
import io.mqttgw.kafka.mapping.PropertyHeaders;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/** Reads a downlink record (format in {@link DownlinkHeaders}) into a {@link DownlinkMessage}, or says why not. */
public final class DownlinkRecords {
    private static final byte[] EMPTY = new byte[0];
    private static final int MAX_TOPIC_BYTES = 65_535;

    private DownlinkRecords() {
    }

    /**
     * What a record asks for: {@code message} for one device, or for all subscribed devices when {@code broadcast};
     * or, when {@code malformed} is not null, nothing.
     */
    public record Mapped(DownlinkMessage message, boolean broadcast, Malformed malformed) {
        static Mapped skip(Malformed why) {
            return new Mapped(null, false, why);
        }
    }

    public static Mapped map(byte[] key, byte[] value, Headers headers) {
        String clientId = key == null ? "" : new String(key, StandardCharsets.UTF_8);
        String broadcastHeader = text(headers, DownlinkHeaders.BROADCAST);
        boolean broadcast = DownlinkHeaders.BROADCAST_KEY.equals(clientId)
                || (broadcastHeader != null && broadcastHeader.trim().equalsIgnoreCase("true"));
        if (!broadcast && clientId.isEmpty()) {
            return Mapped.skip(Malformed.MISSING_KEY);
        }
        Header topicHeader = headers.lastHeader(DownlinkHeaders.TOPIC);
        if (topicHeader == null || topicHeader.value() == null || topicHeader.value().length == 0) {
            return Mapped.skip(Malformed.MISSING_TOPIC);
        }
        if (topicHeader.value().length > MAX_TOPIC_BYTES) {
            return Mapped.skip(Malformed.INVALID_TOPIC);
        }
        String topic = new String(topicHeader.value(), StandardCharsets.UTF_8);
        if (topic.indexOf('+') >= 0 || topic.indexOf('#') >= 0 || topic.indexOf('\u0000') >= 0) {
            return Mapped.skip(Malformed.INVALID_TOPIC);
        }
        int qos = DownlinkHeaders.DEFAULT_QOS;
        String qosText = text(headers, DownlinkHeaders.QOS);
        if (qosText != null) {
            switch (qosText.trim()) {
                case "0" -> qos = 0;
                case "1" -> qos = 1;
                case "2" -> qos = 2;
                default -> {
                    return Mapped.skip(Malformed.BAD_QOS);
                }
            }
        }
        boolean retain = false;
        String retainText = text(headers, DownlinkHeaders.RETAIN);
        if (retainText != null) {
            if (retainText.trim().equalsIgnoreCase("true")) {
                retain = true;
            } else if (!retainText.trim().equalsIgnoreCase("false")) {
                return Mapped.skip(Malformed.BAD_RETAIN);
            }
        }
        long expiresAt = 0;
        String expiryText = text(headers, DownlinkHeaders.EXPIRES_AT);
        if (expiryText != null) {
            try {
                expiresAt = Long.parseLong(expiryText.trim());
            } catch (NumberFormatException e) {
                return Mapped.skip(Malformed.BAD_EXPIRY);
            }
            if (expiresAt < 0) {
                return Mapped.skip(Malformed.BAD_EXPIRY);
            }
        }
        MessageProperties properties = PropertyHeaders.read(headers);
        if (properties == null) {
            return Mapped.skip(Malformed.BAD_PROPERTY);
        }
        return new Mapped(new DownlinkMessage(broadcast ? DownlinkHeaders.BROADCAST_KEY : clientId, topic, qos, retain,
                value == null ? EMPTY : value, expiresAt, properties), broadcast, null);
    }

    private static String text(Headers headers, String name) {
        Header h = headers.lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
