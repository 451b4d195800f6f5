/**
 * Embedded implementations of the SPI, so one node runs with nothing else installed: certificate-only
 * authentication, in-memory routes, a JSON-lines file sink, a discard sink and no downlink.
 */
package io.mqttgw.core.defaults;
