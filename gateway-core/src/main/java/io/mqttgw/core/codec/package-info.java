/**
 * MQTT framing, validation and decoding of device bytes into packets, a malformed packet as a value; on the channel's
 * event loop.
 */
package io.mqttgw.core.codec;
