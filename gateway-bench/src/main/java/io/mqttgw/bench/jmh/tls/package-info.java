/** JMH benchmarks of the TLS front door: device certificate verification. */
package io.mqttgw.bench.jmh.tls;
