package io.mqttgw.core.admin;

import io.mqttgw.core.topic.TopicLimits;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.MessageProperties;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads {@code ?client=ID&topic=T&qos=1&retain=false} and the body into a {@link DownlinkMessage}, or says why not,
 * with the rules of the Kafka downlink path: a topic without wildcards or NUL, within the configured
 * {@link TopicLimits} (the one check device topics get too); QoS 0, 1 or 2 (1 when absent); retain true or false; a
 * client id for a single device (none for a broadcast).
 *
 * <p>The MQTT 5.0 side, sent to a 5.0 device only (a 3.1.1 device gets the payload alone): {@code expiry} (message
 * expiry interval in seconds, 1 to 4294967295; also how long the message may wait for the device),
 * {@code content-type}, {@code response-topic} (a topic name, checked like {@code topic}), {@code correlation-data}
 * (base64, either alphabet, padding optional), {@code payload-format} ({@code utf-8} or {@code 1}: the body must be
 * UTF-8; {@code 0}) and {@code user.<name>=<value>}, repeatable, sent in the order given. A parameter this
 * operation does not know, or a single-valued one given twice, is refused by name: an operator who mistypes one
 * must not be told {@code delivered} for a message sent without it.
 */
record DownlinkRequest(DownlinkMessage message, String refusal) {
    static final String USER_PREFIX = "user.";
    private static final long MAX_EXPIRY_SECONDS = 0xFFFF_FFFFL;
    private static final int MAX_BINARY = 65_535;
    private static final Set<String> KNOWN = Set.of("client", "topic", "qos", "retain", "expiry", "content-type",
            "response-topic", "correlation-data", "payload-format");
    private static final String KNOWN_TEXT = "client, topic, qos, retain, expiry, content-type, response-topic, "
            + "correlation-data, payload-format, user.<name>";

    static DownlinkRequest parse(QueryStringDecoder query, ByteBuf body, boolean broadcast, TopicLimits limits) {
        return parse(query, body, broadcast, limits, System.currentTimeMillis());
    }

    static DownlinkRequest parse(QueryStringDecoder query, ByteBuf body, boolean broadcast, TopicLimits limits,
                                 long nowMillis) {
        Map<String, String> params = new HashMap<>();
        List<MessageProperties.UserProperty> users = new ArrayList<>();
        String malformed = read(query.rawQuery(), params, users);
        if (malformed != null) {
            return refused(malformed);
        }
        String client = params.get("client");
        if (broadcast && client != null) {
            return refused("a broadcast takes no client parameter");
        }
        if (!broadcast && (client == null || client.isEmpty())) {
            return refused("want client=<client id>");
        }
        String topic = params.get("topic");
        if (topic == null || topic.isEmpty()) {
            return refused("want topic=<MQTT topic>");
        }
        String badTopic = checkTopicName("topic", topic, limits);
        if (badTopic != null) {
            return refused(badTopic);
        }
        String qosText = params.get("qos");
        int qos;
        switch (qosText == null ? "1" : qosText) {
            case "0" -> qos = 0;
            case "1" -> qos = 1;
            case "2" -> qos = 2;
            default -> {
                return refused("qos must be 0, 1 or 2");
            }
        }
        String retainText = params.get("retain");
        if (retainText != null && !"true".equals(retainText) && !"false".equals(retainText)) {
            return refused("retain must be true or false");
        }
        long expiresAt = 0;
        String expiryText = params.get("expiry");
        if (expiryText != null) {
            long seconds = seconds(expiryText);
            if (seconds < 1) {
                return refused("expiry must be 1 to " + MAX_EXPIRY_SECONDS + " seconds");
            }
            expiresAt = nowMillis + seconds * 1000;
        }
        String contentType = params.get("content-type");
        if (contentType != null && contentType.indexOf('\u0000') >= 0) {
            return refused("content-type must not contain NUL");
        }
        String responseTopic = params.get("response-topic");
        if (responseTopic != null) {
            if (responseTopic.isEmpty()) {
                return refused("response-topic must not be empty");
            }
            String bad = checkTopicName("response-topic", responseTopic, limits);
            if (bad != null) {
                return refused(bad);
            }
        }
        byte[] correlation = null;
        String correlationText = params.get("correlation-data");
        if (correlationText != null) {
            correlation = base64(correlationText);
            if (correlation == null || correlation.length > MAX_BINARY) {
                return refused("correlation-data must be base64 of at most " + MAX_BINARY + " bytes");
            }
        }
        boolean utf8 = false;
        String format = params.get("payload-format");
        if (format != null) {
            if ("utf-8".equalsIgnoreCase(format) || "1".equals(format)) {
                utf8 = true;
            } else if (!"0".equals(format)) {
                return refused("payload-format must be utf-8, 1 or 0");
            }
        }
        if (utf8 && !ByteBufUtil.isText(body, StandardCharsets.UTF_8)) {
            // a 5.0 device refuses a PUBLISH whose payload is marked UTF-8 and is not (0x99): refused here instead
            return refused("payload-format=utf-8 but the body is not well-formed UTF-8");
        }
        for (MessageProperties.UserProperty user : users) {
            if (user.name().isEmpty()) {
                return refused("a user property needs a name: user.<name>=<value>");
            }
            if (user.name().indexOf('\u0000') >= 0 || user.value().indexOf('\u0000') >= 0) {
                return refused("user property " + USER_PREFIX + user.name() + " must not contain NUL");
            }
        }
        MessageProperties properties = !utf8 && contentType == null && responseTopic == null && correlation == null
                && users.isEmpty() ? MessageProperties.NONE
                : new MessageProperties(utf8, contentType, responseTopic, correlation, users);
        byte[] payload = new byte[body.readableBytes()];
        body.getBytes(body.readerIndex(), payload);
        return new DownlinkRequest(new DownlinkMessage(broadcast ? null : client, topic, qos,
                "true".equals(retainText), payload, expiresAt, properties), null);
    }

    /**
     * Splits the raw query in order (the separators {@link QueryStringDecoder} uses: {@code &} and {@code ;}), so that
     * user properties keep the order they were given in even when names interleave. Null when well-formed, else why.
     */
    private static String read(String raw, Map<String, String> params, List<MessageProperties.UserProperty> users) {
        int start = 0;
        while (start <= raw.length()) {
            int end = start;
            while (end < raw.length() && raw.charAt(end) != '&' && raw.charAt(end) != ';') {
                end++;
            }
            if (end > start) {
                int eq = raw.indexOf('=', start);
                boolean hasValue = eq >= 0 && eq < end;
                String name;
                String value;
                try {
                    name = QueryStringDecoder.decodeComponent(raw.substring(start, hasValue ? eq : end),
                            StandardCharsets.UTF_8);
                    value = hasValue ? QueryStringDecoder.decodeComponent(raw.substring(eq + 1, end),
                            StandardCharsets.UTF_8) : "";
                } catch (IllegalArgumentException e) {
                    return "malformed query: " + e.getMessage();
                }
                if (name.startsWith(USER_PREFIX)) {
                    users.add(new MessageProperties.UserProperty(name.substring(USER_PREFIX.length()), value));
                } else if (!KNOWN.contains(name)) {
                    return "unknown parameter '" + name + "'; known: " + KNOWN_TEXT;
                } else if (params.putIfAbsent(name, value) != null) {
                    return "parameter '" + name + "' given more than once";
                }
            }
            start = end + 1;
        }
        return null;
    }

    private static String checkTopicName(String what, String topic, TopicLimits limits) {
        if (topic.indexOf('+') >= 0 || topic.indexOf('#') >= 0 || topic.indexOf('\u0000') >= 0) {
            return what + " must be a topic name: no wildcards (+, #) and no NUL";
        }
        TopicLimits.Exceeded exceeded = limits.check(topic);
        if (exceeded == TopicLimits.Exceeded.LENGTH) {
            return what + " longer than " + limits.maxBytes() + " bytes (mqtt.max-topic-length)";
        }
        if (exceeded == TopicLimits.Exceeded.LEVELS) {
            return what + " has more than " + limits.maxLevels() + " levels (mqtt.max-topic-levels)";
        }
        return null;
    }

    /** Decimal seconds up to {@link #MAX_EXPIRY_SECONDS}, or -1. */
    private static long seconds(String text) {
        if (text.isEmpty() || text.length() > 10) {
            return -1;
        }
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return -1;
            }
        }
        long value = Long.parseLong(text);
        return value > MAX_EXPIRY_SECONDS ? -1 : value;
    }

    /** Base64 in either alphabet (a query carries {@code -_} more easily than {@code +/}), or null. */
    private static byte[] base64(String text) {
        try {
            // an unescaped + in a query decodes to a space, which base64 never holds
            return Base64.getDecoder().decode(text.replace(' ', '+').replace('-', '+').replace('_', '/'));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static DownlinkRequest refused(String why) {
        return new DownlinkRequest(null, why);
    }
}
