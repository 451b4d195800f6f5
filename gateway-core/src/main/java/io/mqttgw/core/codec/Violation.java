package io.mqttgw.core.codec;

import io.mqttgw.core.connection.DisconnectReason;
import io.netty.handler.codec.mqtt.MqttConnectReturnCode;

/**
 * Why a packet is refused: the close reason it is counted under, the rule it breaks, whether that rule may be told to
 * a 5.0 device in its DISCONNECT (only the specification's own text is), and the CONNACK return code MQTT 3.1.1
 * prescribes before the close, if any.
 *
 * @param reason  the counted close reason
 * @param rule    the broken rule, for the device (when {@code told}) and for logs
 * @param told    whether {@code rule} goes into a 5.0 device's DISCONNECT as its reason string
 * @param connack the return code of a refusing CONNACK written before the close, or null
 */
public record Violation(DisconnectReason reason, String rule, boolean told, MqttConnectReturnCode connack) {
    /** A normative statement the packet breaks: safe to tell the device. */
    static Violation rule(DisconnectReason reason, String rule) {
        return new Violation(reason, rule, true, null);
    }

    /** A field's content the gateway refuses; the device is told only the reason code. */
    static Violation content(DisconnectReason reason, String rule) {
        return new Violation(reason, rule, false, null);
    }

    /** A CONNECT answered with a refusing CONNACK before the close. */
    static Violation refusal(DisconnectReason reason, String rule, MqttConnectReturnCode connack) {
        return new Violation(reason, rule, false, connack);
    }
}
