package io.mqttgw.core.spi;

/**
 * Where a device is connected.
 *
 * @param clientId      the device's client id
 * @param nodeId        the gateway node holding the connection
 * @param epoch         connection epoch, unique and increasing per node; fences late deletes and writes
 * @param connectedAtMillis connect time, epoch milliseconds
 * @param remoteAddress the device's address as text
 */
public record Route(String clientId, String nodeId, long epoch, long connectedAtMillis, String remoteAddress) {
}
