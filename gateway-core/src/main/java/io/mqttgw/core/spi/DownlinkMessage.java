package io.mqttgw.core.spi;

/** A message from the platform for one device. */
public record DownlinkMessage(String clientId, String topic, int qos, boolean retain, byte[] payload) {
}
