/** Benchmarks of the MQTT protocol path: codec, topic filter matching, the uplink pipeline. The broadcast
 * fan-out benchmark is {@code io.mqttgw.core.protocol.BroadcastFanOutBenchmark} (it needs a package-private class). */
package io.mqttgw.bench.jmh.protocol;
