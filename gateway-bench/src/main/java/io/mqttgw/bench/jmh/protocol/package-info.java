/** Benchmarks of the MQTT protocol path: codec, topic filter matching, fan-out encoding, the uplink pipeline. */
package io.mqttgw.bench.jmh.protocol;
