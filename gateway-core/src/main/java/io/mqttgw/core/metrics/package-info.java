/** Micrometer meters of the gateway and the admin HTTP endpoint that serves them with {@code /health}. */
package io.mqttgw.core.metrics;
