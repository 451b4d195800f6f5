/** Starting and stopping a node: transport choice, listeners, components from providers, graceful shutdown, the CLI. */
package io.mqttgw.core.bootstrap;
