package io.mqttgw.core.admin;

import io.mqttgw.core.protocol.TopicLimits;
import io.mqttgw.core.spi.DownlinkMessage;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.List;

/**
 * Reads {@code ?client=ID&topic=T&qos=1&retain=false} and the body into a {@link DownlinkMessage}, or says why not,
 * with the rules of the Kafka downlink path: a topic without wildcards or NUL, within the configured
 * {@link TopicLimits} (the one check device topics get too); QoS 0, 1 or 2 (1 when absent); retain true or false; a
 * client id for a single device.
 */
record DownlinkRequest(DownlinkMessage message, String refusal) {
    static DownlinkRequest parse(QueryStringDecoder query, ByteBuf body, boolean broadcast, TopicLimits limits) {
        String client = param(query, "client");
        if (!broadcast && (client == null || client.isEmpty())) {
            return refused("want client=<client id>");
        }
        String topic = param(query, "topic");
        if (topic == null || topic.isEmpty()) {
            return refused("want topic=<MQTT topic>");
        }
        if (topic.indexOf('+') >= 0 || topic.indexOf('#') >= 0 || topic.indexOf('\u0000') >= 0) {
            return refused("topic must be a topic name: no wildcards (+, #) and no NUL");
        }
        TopicLimits.Exceeded exceeded = limits.check(topic);
        if (exceeded == TopicLimits.Exceeded.LENGTH) {
            return refused("topic longer than " + limits.maxBytes() + " bytes (mqtt.max-topic-length)");
        }
        if (exceeded == TopicLimits.Exceeded.LEVELS) {
            return refused("topic has more than " + limits.maxLevels() + " levels (mqtt.max-topic-levels)");
        }
        String qosText = param(query, "qos");
        int qos;
        switch (qosText == null ? "1" : qosText) {
            case "0" -> qos = 0;
            case "1" -> qos = 1;
            case "2" -> qos = 2;
            default -> {
                return refused("qos must be 0, 1 or 2");
            }
        }
        String retainText = param(query, "retain");
        if (retainText != null && !"true".equals(retainText) && !"false".equals(retainText)) {
            return refused("retain must be true or false");
        }
        byte[] payload = new byte[body.readableBytes()];
        body.getBytes(body.readerIndex(), payload);
        return new DownlinkRequest(new DownlinkMessage(broadcast ? null : client, topic, qos,
                "true".equals(retainText), payload), null);
    }

    private static DownlinkRequest refused(String why) {
        return new DownlinkRequest(null, why);
    }

    private static String param(QueryStringDecoder query, String name) {
        List<String> values = query.parameters().get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }
}
