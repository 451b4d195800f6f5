/**
 * JMH benchmarks of the gateway's hot paths, in packages mirroring gateway-core's. Not part of any test run: build
 * the module, then {@code java -cp 'gateway-bench/target/bench/lib/*' org.openjdk.jmh.Main <regex>}.
 */
package io.mqttgw.bench.jmh;
