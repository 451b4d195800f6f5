/** Benchmarks of {@link io.mqttgw.core.registry.ChannelRegistry}: sharded versus one map under contention. */
package io.mqttgw.bench.jmh.registry;
