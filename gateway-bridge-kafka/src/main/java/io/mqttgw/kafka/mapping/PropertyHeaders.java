package io.mqttgw.kafka.mapping;

import io.mqttgw.core.spi.MessageProperties;
import io.mqttgw.core.spi.UplinkMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * The MQTT 5.0 PUBLISH properties as Kafka record headers, the same names both ways: an uplink record carries the
 * device's properties, a downlink record's headers become the properties of the PUBLISH a 5.0 device gets (a 3.1.1
 * device gets the payload alone). Strings are UTF-8; a header that is absent is a property that is absent. Stateless.
 *
 * <table>
 *   <caption>headers</caption>
 *   <tr><th>header</th><th>MQTT 5.0 property</th><th>value</th></tr>
 *   <tr><td>{@value #CONTENT_TYPE}</td><td>content type (0x03)</td><td>UTF-8 text</td></tr>
 *   <tr><td>{@value #RESPONSE_TOPIC}</td><td>response topic (0x08)</td><td>UTF-8 topic, no wildcards</td></tr>
 *   <tr><td>{@value #CORRELATION_DATA}</td><td>correlation data (0x09)</td><td>the bytes as they are</td></tr>
 *   <tr><td>{@value #PAYLOAD_FORMAT}</td><td>payload format indicator (0x01)</td><td>{@code utf-8} when 1</td></tr>
 *   <tr><td>{@value #USER_PREFIX}{@code <name>}</td><td>user property (0x26)</td><td>UTF-8 value; one header per
 *   property, in order, names may repeat</td></tr>
 *   <tr><td>{@value #EXPIRES_AT}</td><td>message expiry interval (0x02)</td><td>epoch milliseconds, decimal
 *   ASCII</td></tr>
 * </table>
 */
public final class PropertyHeaders {
    public static final String CONTENT_TYPE = "mqtt.content-type";
    public static final String RESPONSE_TOPIC = "mqtt.response-topic";
    public static final String CORRELATION_DATA = "mqtt.correlation-data";
    public static final String PAYLOAD_FORMAT = "mqtt.payload-format";
    /** The value of {@link #PAYLOAD_FORMAT} for a UTF-8 payload (indicator 1); downlink also takes {@code 1}. */
    public static final String UTF_8 = "utf-8";
    /** A user property {@code name} is the header {@code mqtt.user.name}. */
    public static final String USER_PREFIX = "mqtt.user.";
    /**
     * When the message expires, epoch milliseconds: on an uplink record the receive time plus the message expiry
     * interval the device set; on a downlink record the time after which it is not delivered. One name both ways, so
     * a record a service passes from the uplink to a device's downlink topic keeps its deadline.
     */
    public static final String EXPIRES_AT = "expires.at";

    private static final byte[] UTF_8_BYTES = UTF_8.getBytes(StandardCharsets.US_ASCII);

    private PropertyHeaders() {
    }

    /** Adds {@code properties} to an uplink record's headers; nothing for {@link MessageProperties#NONE}. */
    public static void write(MessageProperties properties, Headers headers) {
        if (properties.isEmpty()) {
            return;
        }
        if (properties.utf8Payload()) {
            headers.add(new RecordHeader(PAYLOAD_FORMAT, UTF_8_BYTES));
        }
        if (properties.contentType() != null) {
            headers.add(new RecordHeader(CONTENT_TYPE, utf8(properties.contentType())));
        }
        if (properties.responseTopic() != null) {
            headers.add(new RecordHeader(RESPONSE_TOPIC, utf8(properties.responseTopic())));
        }
        if (properties.correlationData() != null) {
            headers.add(new RecordHeader(CORRELATION_DATA, properties.correlationData()));
        }
        for (MessageProperties.UserProperty user : properties.userProperties()) {
            headers.add(new RecordHeader(USER_PREFIX + user.name(), utf8(user.value())));
        }
    }

    /**
     * Adds the {@link #EXPIRES_AT} of a message the device gave an expiry interval (seconds from
     * {@code receivedAtMillis}); nothing for {@link UplinkMessage#NO_EXPIRY}.
     */
    public static void writeExpiry(long receivedAtMillis, long expiryInterval, Headers headers) {
        if (expiryInterval != UplinkMessage.NO_EXPIRY) {
            headers.add(new RecordHeader(EXPIRES_AT, Long.toString(receivedAtMillis + expiryInterval * 1000)
                    .getBytes(StandardCharsets.US_ASCII)));
        }
    }

    /**
     * The properties a downlink record's headers ask for ({@link MessageProperties#NONE} when none); null when one is
     * unusable: a response topic with wildcards or a NUL character (MQTT-3.3.2-14), an unknown payload format.
     */
    public static MessageProperties read(Headers headers) {
        boolean utf8 = false;
        String contentType = null;
        String responseTopic = null;
        byte[] correlation = null;
        List<MessageProperties.UserProperty> users = null;
        for (Header h : headers) {
            String key = h.key();
            if (!key.startsWith("mqtt.") || h.value() == null) {
                continue;
            }
            switch (key) {
                case PAYLOAD_FORMAT -> {
                    String format = text(h).trim();
                    if (format.equalsIgnoreCase(UTF_8) || format.equals("1")) {
                        utf8 = true;
                    } else if (!format.equals("0") && !format.isEmpty()) {
                        return null;
                    }
                }
                case CONTENT_TYPE -> contentType = text(h);
                case RESPONSE_TOPIC -> {
                    responseTopic = text(h);
                    if (responseTopic.isEmpty() || responseTopic.indexOf('+') >= 0 || responseTopic.indexOf('#') >= 0
                            || responseTopic.indexOf('\u0000') >= 0) {
                        return null;
                    }
                }
                case CORRELATION_DATA -> correlation = h.value();
                default -> {
                    if (key.startsWith(USER_PREFIX) && key.length() > USER_PREFIX.length()) {
                        if (users == null) {
                            users = new ArrayList<>(4);
                        }
                        users.add(new MessageProperties.UserProperty(key.substring(USER_PREFIX.length()), text(h)));
                    }
                }
            }
        }
        if (!utf8 && contentType == null && responseTopic == null && correlation == null && users == null) {
            return MessageProperties.NONE;
        }
        return new MessageProperties(utf8, contentType, responseTopic, correlation, users);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(Header h) {
        return new String(h.value(), StandardCharsets.UTF_8);
    }
}
