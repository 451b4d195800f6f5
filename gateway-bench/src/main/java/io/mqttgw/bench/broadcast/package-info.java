/**
 * End-to-end broadcast delivery: a gateway and a second process of plain-TCP devices on real event loops,
 * timing a broadcast until every device has it. The encoding-only benchmark is
 * {@code io.mqttgw.bench.jmh.protocol.BroadcastFanOutBenchmark}. Figures in {@code BENCHMARKS.md}.
 */
package io.mqttgw.bench.broadcast;
