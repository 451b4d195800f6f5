/** Persistent MQTT sessions and retained downlink messages in Redis ({@code session.provider: redis}). */
package io.mqttgw.routing.session;
