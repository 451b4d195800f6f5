/**
 * The bench PKI (a CA, a server certificate and device certificates generated with netty-pkitesting and cached on
 * disk) and the client TLS context that presents each device's own certificate.
 */
package io.mqttgw.bench.sim.pki;
