package io.mqttgw.core.protocol;

import io.mqttgw.core.config.GatewayConfig;

/**
 * The MQTT 5.0 limits the gateway announces in CONNACK and then enforces on messages, read from the config in this
 * one place (the CONNECT side announces them, the message side holds devices to them). Stateless.
 */
final class MessageLimits {
    private MessageLimits() {
    }

    /**
     * The receive maximum the gateway announces: QoS 1/2 PUBLISHes a device may have unacknowledged. The uplink
     * window {@code mqtt.max-inflight-uplink} is the natural bound (capped at the 65,535 MQTT can say).
     */
    static int receiveMaximum(GatewayConfig config) {
        return Math.min(65_535, config.mqtt().maxInflightUplink());
    }

    /** The topic alias maximum the gateway announces: uplink aliases a device may set (0: none). */
    static int topicAliasMaximum(GatewayConfig config) {
        return 16;
    }

    /** Whether the gateway announces subscription identifiers as available. */
    static boolean subscriptionIdentifiersAvailable(GatewayConfig config) {
        return true;
    }
}
