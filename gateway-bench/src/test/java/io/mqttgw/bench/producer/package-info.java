/** The producer-rate tool against a real broker, and its parts. */
package io.mqttgw.bench.producer;
