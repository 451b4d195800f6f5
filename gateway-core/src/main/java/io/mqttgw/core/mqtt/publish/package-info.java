/**
 * Uplink PUBLISH: topic rules, hand-off to the uplink sink and the acknowledgements it earns; on the channel's event
 * loop.
 */
package io.mqttgw.core.mqtt.publish;
