/** Command-line parsing into immutable option records, validated once with messages that name the option. */
package io.mqttgw.bench.sim.config;
