package io.mqttgw.core.protocol;

import io.mqttgw.core.spi.MessageProperties;
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
