/** Which Kafka topic an MQTT topic goes to (ordered filter rules and a default), and MQTT 5.0 properties as headers. */
package io.mqttgw.kafka.mapping;
