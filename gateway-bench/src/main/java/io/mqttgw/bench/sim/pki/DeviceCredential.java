package io.mqttgw.bench.sim.pki;

/**
 * One device's certificate and key kept as DER (about 0.6 KB for P-256), parsed only when a handshake asks for
 * them, so a client holding hundreds of thousands of devices does not keep as many JDK key objects. Immutable.
 */
public record DeviceCredential(byte[] certificateDer, byte[] keyDer) {
}
