package io.mqttgw.bench.sim.config;

/**
 * How device certificates are shared. With the core's certificate authentication the client id must equal the
 * certificate CN, so only {@link #PER_DEVICE} lets many devices hold sessions at once; {@link #SHARED} and
 * {@link #POOL} are for gateways whose authentication does not bind the identity to the client id.
 */
public enum CertMode {
    PER_DEVICE,
    SHARED,
    POOL
}
