/** Certificate fingerprints (SHA-256 of the DER encoding) and the pins that bind a client id to one. */
package io.mqttgw.auth.x509;
