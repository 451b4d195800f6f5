package io.mqttgw.core.spi;

import java.util.List;

/**
 * The MQTT 5.0 PUBLISH properties a message carries through the gateway, between a device and the platform, in both
 * directions. Per-connection properties (topic alias, subscription identifiers) and the expiry (a field of the
 * message itself) are not here. An MQTT 3.1.1 message, and a 5.0 message without these properties, carries
 * {@link #NONE}, so 3.1.1 traffic pays one shared reference and nothing else.
 *
 * @param utf8Payload     payload format indicator 1: the payload is UTF-8 text (checked on uplink)
 * @param contentType     the content type, or null
 * @param responseTopic   the topic a response goes to (request/response), or null
 * @param correlationData the correlation data, or null; the array belongs to the message and is not changed
 * @param userProperties  user properties in order (names may repeat); never null
 */
public record MessageProperties(boolean utf8Payload, String contentType, String responseTopic,
                                byte[] correlationData, List<UserProperty> userProperties) {

    public static final MessageProperties NONE = new MessageProperties(false, null, null, null, List.of());

    public MessageProperties {
        userProperties = userProperties == null ? List.of() : List.copyOf(userProperties);
    }

    /** True when nothing is set: such a message is sent without PUBLISH properties. */
    public boolean isEmpty() {
        return !utf8Payload && contentType == null && responseTopic == null && correlationData == null
                && userProperties.isEmpty();
    }

    /** One MQTT 5.0 user property (a name-value pair of UTF-8 strings). */
    public record UserProperty(String name, String value) {
    }
}
