/**
 * MQTT handling on the channel's event loop: one handler per packet type or phase, per-connection state in one
 * {@link io.mqttgw.core.protocol.ConnectionContext} attribute, every close through
 * {@link io.mqttgw.core.protocol.DeviceDisconnector} with a counted {@link io.mqttgw.core.protocol.DisconnectReason}.
 */
package io.mqttgw.core.protocol;
