/**
 * The Kafka bridge: {@code uplink} (device PUBLISHes to Kafka, an {@code UplinkSink}) and {@code mapping} (MQTT
 * topic to Kafka topic), {@code downlink} (each node's consumer of its downlink topic, a {@code DownlinkSource}) and
 * {@code downlink.client} (the API business services send commands with).
 */
package io.mqttgw.kafka;
