/**
 * The established session: its services, will, MQTT 5 session state, PINGREQ, DISCONNECT and unexpected packets; on
 * the channel's event loop.
 */
package io.mqttgw.core.mqtt.session;
