/** Connection lifecycle events on their own logger, rate-limited so storms cannot flood the log. */
package io.mqttgw.core.events;
