/**
 * Per-connection state and its end: the context attribute, the keepalive and retry wheels, writability, and the one
 * place that closes a device with a counted reason; all on the channel's event loop.
 */
package io.mqttgw.core.connection;
