/**
 * Downlink PUBLISH to a device: dispatch, in-flight window, retries and the device's acknowledgements; on the
 * channel's event loop.
 */
package io.mqttgw.core.mqtt.downlink;
