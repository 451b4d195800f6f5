/** Topic filters, topic limits and subscription matching: pure functions, safe from any thread. */
package io.mqttgw.core.topic;
