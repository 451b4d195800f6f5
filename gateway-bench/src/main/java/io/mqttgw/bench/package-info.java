/** The gateway's benchmarking tools: the simulated-device client ({@code sim}) and JMH benchmarks ({@code jmh}). */
package io.mqttgw.bench;
