/**
 * CONNECT: checks, identity, authentication, takeover, route, session restore and CONNACK; on the channel's event
 * loop, asynchronous answers handed back to it.
 */
package io.mqttgw.core.mqtt.connect;
