/** SUBSCRIBE and UNSUBSCRIBE of an established session; on the channel's event loop. */
package io.mqttgw.core.mqtt.subscribe;
