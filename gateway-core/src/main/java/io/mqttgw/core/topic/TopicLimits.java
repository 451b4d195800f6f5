package io.mqttgw.core.topic;

import io.netty.buffer.ByteBufUtil;
import java.util.Locale;

/**
 * The bounds on a topic name or filter ({@code mqtt.max-topic-length} in UTF-8 bytes, {@code mqtt.max-topic-levels}),
 * the one check used for device PUBLISH and will topics, SUBSCRIBE and UNSUBSCRIBE filters, and downlink topics from
 * any source. A level such as {@code ..} is plain text to MQTT; it counts like any other. Immutable and thread-safe.
 */
public record TopicLimits(int maxBytes, int maxLevels) {
    /** The defaults of the configuration keys. */
    public static final TopicLimits DEFAULT = new TopicLimits(1024, 16);

    /** Which bound a topic broke; each value is a label of {@code mqttgw_topics_refused_total}. */
    public enum Exceeded {
        LENGTH,
        LEVELS;

        private final String label = name().toLowerCase(Locale.ROOT);

        public String label() {
            return label;
        }
    }

    /** Null when {@code topic} is within both bounds, else the bound it breaks (length checked first). */
    public Exceeded check(String topic) {
        // a UTF-8 encoding has at least one byte per char: a short string needs no byte count
        if (topic.length() > maxBytes || (topic.length() * 3L > maxBytes && ByteBufUtil.utf8Bytes(topic) > maxBytes)) {
            return Exceeded.LENGTH;
        }
        int levels = 1;
        for (int i = 0; i < topic.length(); i++) {
            if (topic.charAt(i) == '/' && ++levels > maxLevels) {
                return Exceeded.LEVELS;
            }
        }
        return null;
    }
}
