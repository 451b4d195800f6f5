/** Which channel holds which client id on this node: a sharded, lock-free map with takeover and fenced removal. */
package io.mqttgw.core.registry;
