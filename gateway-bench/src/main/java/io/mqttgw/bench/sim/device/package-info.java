/**
 * Simulated devices on Netty (epoll, NIO fallback): one small {@link io.mqttgw.bench.sim.device.Device} object and
 * at most one scheduled task per device, shared stateless handlers, a ramp with a cap on concurrent handshakes,
 * reconnects with full-jitter backoff, and counters the worker reports once a second.
 */
package io.mqttgw.bench.sim.device;
