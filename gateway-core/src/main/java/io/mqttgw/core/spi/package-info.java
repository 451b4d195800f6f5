/**
 * The service provider interface: asynchronous authentication, route store, uplink sink and downlink source.
 * Implementations are found with {@link java.util.ServiceLoader} through their {@code *Provider} and chosen by
 * name in the configuration. Calls arrive on an event loop and must not block it; completions may happen on any
 * thread (the gateway hops back to the channel's event loop).
 */
package io.mqttgw.core.spi;
