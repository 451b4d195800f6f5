package io.mqttgw.core.mqtt.connect;

/** What the checks of a CONNECT found: the request to authenticate, or why it is refused. Immutable values. */
sealed interface CheckOutcome permits ConnectRequest, Refused {
}
