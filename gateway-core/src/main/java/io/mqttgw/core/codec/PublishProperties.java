package io.mqttgw.core.codec;

import io.mqttgw.core.spi.MessageProperties;
import io.mqttgw.core.spi.UplinkMessage;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttProperties.BinaryProperty;
import io.netty.handler.codec.mqtt.MqttProperties.IntegerProperty;
import io.netty.handler.codec.mqtt.MqttProperties.MqttProperty;
import io.netty.handler.codec.mqtt.MqttProperties.StringPair;
import io.netty.handler.codec.mqtt.MqttProperties.StringProperty;
import io.netty.handler.codec.mqtt.MqttProperties.UserProperties;
import java.util.ArrayList;
import java.util.List;

/**
 * Converts between Netty's decoded MQTT 5.0 properties of a PUBLISH (or a will) and the gateway's
 * {@link MessageProperties}: only the properties that travel with a message to or from the platform. Stateless.
 */
public final class PublishProperties {
    private PublishProperties() {
    }

    /** The message properties among {@code properties}; {@link MessageProperties#NONE} when there are none. */
    public static MessageProperties read(MqttProperties properties) {
        if (properties == null || properties.isEmpty()) {
            return MessageProperties.NONE;
        }
        MqttProperty<?> format = properties.getProperty(MqttProperties.PAYLOAD_FORMAT_INDICATOR);
        boolean utf8 = format != null && Integer.valueOf(1).equals(format.value());
        String contentType = string(properties, MqttProperties.CONTENT_TYPE);
        String responseTopic = string(properties, MqttProperties.RESPONSE_TOPIC);
        MqttProperty<?> correlation = properties.getProperty(MqttProperties.CORRELATION_DATA);
        byte[] correlationData = correlation == null ? null : (byte[]) correlation.value();
        List<? extends MqttProperty> users = properties.getProperties(MqttProperties.USER_PROPERTY);
        List<MessageProperties.UserProperty> userProperties = List.of();
        if (!users.isEmpty()) {
            userProperties = new ArrayList<>();
            for (MqttProperty<?> user : users) {
                addPairs(user.value(), userProperties);
            }
        }
        if (!utf8 && contentType == null && responseTopic == null && correlationData == null
                && userProperties.isEmpty()) {
            return MessageProperties.NONE;
        }
        return new MessageProperties(utf8, contentType, responseTopic, correlationData, userProperties);
    }

    /**
     * The message expiry interval among {@code properties} in seconds (an unsigned four-byte value), or
     * {@link UplinkMessage#NO_EXPIRY} when there is none.
     */
    public static long expiryInterval(MqttProperties properties) {
        if (properties == null || properties.isEmpty()) {
            return UplinkMessage.NO_EXPIRY;
        }
        MqttProperty<?> expiry = properties.getProperty(MqttProperties.PUBLICATION_EXPIRY_INTERVAL);
        return expiry == null ? UplinkMessage.NO_EXPIRY : Integer.toUnsignedLong((Integer) expiry.value());
    }

    /** Adds {@code message}'s properties to {@code target} (a PUBLISH's properties being built). */
    public static void write(MessageProperties message, MqttProperties target) {
        if (message == null || message.isEmpty()) {
            return;
        }
        if (message.utf8Payload()) {
            target.add(new IntegerProperty(MqttProperties.PAYLOAD_FORMAT_INDICATOR, 1));
        }
        if (message.contentType() != null) {
            target.add(new StringProperty(MqttProperties.CONTENT_TYPE, message.contentType()));
        }
        if (message.responseTopic() != null) {
            target.add(new StringProperty(MqttProperties.RESPONSE_TOPIC, message.responseTopic()));
        }
        if (message.correlationData() != null) {
            target.add(new BinaryProperty(MqttProperties.CORRELATION_DATA, message.correlationData()));
        }
        if (!message.userProperties().isEmpty()) {
            UserProperties users = new UserProperties();
            for (MessageProperties.UserProperty user : message.userProperties()) {
                users.add(user.name(), user.value());
            }
            target.add(users);
        }
    }

    /**
     * The bytes {@code properties} take in an encoded PUBLISH, without the property length in front: what the
     * device's maximum packet size is checked against before a downlink PUBLISH is sent.
     */
    public static int encodedLength(MqttProperties properties) {
        int length = 0;
        for (MqttProperty<?> p : properties.listAll()) {
            length += 1;
            Object value = p.value();
            switch (p.propertyId()) {
                case MqttProperties.PAYLOAD_FORMAT_INDICATOR -> length += 1;
                case MqttProperties.PUBLICATION_EXPIRY_INTERVAL -> length += 4;
                case MqttProperties.TOPIC_ALIAS -> length += 2;
                case MqttProperties.SUBSCRIPTION_IDENTIFIER -> length += variableByteIntegerLength((Integer) value);
                case MqttProperties.CORRELATION_DATA -> length += 2 + ((byte[]) value).length;
                case MqttProperties.USER_PROPERTY -> {
                    // one property per pair on the wire: the id counted above is for the first
                    length -= 1;
                    for (StringPair pair : userPairs(value)) {
                        length += 1 + 2 + utf8Length(pair.key) + 2 + utf8Length(pair.value);
                    }
                }
                default -> length += 2 + utf8Length((String) value);
            }
        }
        return length;
    }

    /** Bytes of an MQTT variable byte integer. */
    public static int variableByteIntegerLength(int value) {
        return value < 128 ? 1 : value < 16_384 ? 2 : value < 2_097_152 ? 3 : 4;
    }

    private static List<StringPair> userPairs(Object value) {
        List<MessageProperties.UserProperty> users = new ArrayList<>();
        addPairs(value, users);
        List<StringPair> pairs = new ArrayList<>(users.size());
        for (MessageProperties.UserProperty u : users) {
            pairs.add(new StringPair(u.name(), u.value()));
        }
        return pairs;
    }

    private static int utf8Length(String s) {
        return io.netty.buffer.ByteBufUtil.utf8Bytes(s);
    }

    private static String string(MqttProperties properties, int id) {
        MqttProperty<?> property = properties.getProperty(id);
        return property == null ? null : (String) property.value();
    }

    // Netty decodes user properties either as one UserProperties (a list of pairs) or one UserProperty per pair
    private static void addPairs(Object value, List<MessageProperties.UserProperty> out) {
        if (value instanceof StringPair pair) {
            out.add(new MessageProperties.UserProperty(pair.key, pair.value));
        } else if (value instanceof List<?> pairs) {
            for (Object each : pairs) {
                addPairs(each, out);
            }
        }
    }
}
