/**
 * Commands from Kafka to devices: one consumer per node reads the node's downlink topic and hands each record to the
 * gateway ({@code DownlinkSource}), with a bound on deliveries in flight and offsets committed once delivered.
 */
package io.mqttgw.kafka.downlink;
