/**
 * The Kafka bridge: {@code uplink} (device PUBLISHes to Kafka, an {@code UplinkSink}) and {@code mapping} (MQTT
 * topic to Kafka topic). The downlink consumer will live beside them.
 */
package io.mqttgw.kafka;
