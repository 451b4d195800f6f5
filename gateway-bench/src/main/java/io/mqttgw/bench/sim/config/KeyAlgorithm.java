package io.mqttgw.bench.sim.config;

/** Key type of the bench PKI (CA, server and device certificates). */
public enum KeyAlgorithm {
    EC,
    RSA
}
