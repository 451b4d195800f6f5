/** Micrometer meters of the gateway and the named checks that the admin plane's readiness endpoint reports. */
package io.mqttgw.core.metrics;
