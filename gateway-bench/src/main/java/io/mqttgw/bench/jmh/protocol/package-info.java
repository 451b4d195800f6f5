/** Benchmarks of the MQTT protocol path: codec, topic filter matching, the uplink pipeline, broadcast fan-out. */
package io.mqttgw.bench.jmh.protocol;
