/**
 * {@code auth.provider: http}: one HTTP call to the platform's auth service per device and credentials, through
 * async-http-client on its own event loops, with the answer remembered, shared between concurrent CONNECTs, bounded
 * in time and number, and cut off by a circuit breaker while the service fails.
 */
package io.mqttgw.auth.http;
