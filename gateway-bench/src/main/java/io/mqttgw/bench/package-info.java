/** The simulated-device client and the JMH benchmarks (issue 7; not built yet). */
package io.mqttgw.bench;
