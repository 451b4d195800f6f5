/**
 * TLS: server contexts built from PEM files and swapped when the files change, certificate identities, handshake
 * outcomes.
 */
package io.mqttgw.core.tls;
