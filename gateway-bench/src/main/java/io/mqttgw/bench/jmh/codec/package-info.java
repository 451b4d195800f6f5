/** JMH benchmarks of the gateway's packet decoder, through its public surface; single-threaded state. */
package io.mqttgw.bench.jmh.codec;
