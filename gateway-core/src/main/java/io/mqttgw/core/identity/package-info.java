/** Device identities: which strings may name a device, and how a connection proved the one it has. */
package io.mqttgw.core.identity;
