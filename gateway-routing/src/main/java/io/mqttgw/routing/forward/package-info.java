/** Operator operations forwarded to the node that holds the device, over per-node Redis pub/sub channels. */
package io.mqttgw.routing.forward;
