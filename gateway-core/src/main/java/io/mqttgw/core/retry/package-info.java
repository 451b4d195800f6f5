/** Retrying after a failure without a thundering herd: the full-jitter backoff shared by the modules and the bench. */
package io.mqttgw.core.retry;
