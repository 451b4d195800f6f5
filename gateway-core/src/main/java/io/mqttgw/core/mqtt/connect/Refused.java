package io.mqttgw.core.mqtt.connect;

import io.mqttgw.core.connection.DisconnectReason;

/**
 * A CONNECT a check refused: the refusal the device is told (if its protocol has a code for it), the reason the close
 * is counted under, and the client id the event log names (null when it is not to be repeated). Immutable.
 */
record Refused(String clientId, ConnectRefusal refusal, DisconnectReason reason) implements CheckOutcome {
}
