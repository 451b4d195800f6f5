/**
 * Device PUBLISHes to Kafka through one shared, batching producer that never blocks an event loop: metadata is
 * warmed at startup, {@code max.block.ms} is 0, and bytes awaiting Kafka are bounded, beyond which messages are
 * refused at once (QoS 1 unacknowledged, so the gateway's per-connection window pauses reading).
 */
package io.mqttgw.kafka.uplink;
