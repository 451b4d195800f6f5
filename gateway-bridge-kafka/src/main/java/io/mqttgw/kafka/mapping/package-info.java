/** Which Kafka topic an MQTT topic goes to: ordered filter rules and a default. */
package io.mqttgw.kafka.mapping;
