/** MQTT packet handling after the codec, one subpackage per phase or packet family; all on the channel's event loop. */
package io.mqttgw.core.mqtt;
