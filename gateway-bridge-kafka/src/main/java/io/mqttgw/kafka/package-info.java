/** The Kafka uplink sink and downlink source, found by ServiceLoader (issues 3 and 8; not built yet). */
package io.mqttgw.kafka;
