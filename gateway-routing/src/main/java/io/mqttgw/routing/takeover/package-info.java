/** Cross-node takeover: the per-node pub/sub channel that tells a node another node now holds its device. */
package io.mqttgw.routing.takeover;
