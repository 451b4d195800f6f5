package io.mqttgw.core.spi;

/**
 * Builds a {@link TicketKeySource}; found with ServiceLoader. {@code listener.tls.ticket-key-source: auto} picks the
 * provider named like {@code routes.provider} when there is one (so {@code routes.provider: redis} shares the keys
 * through the same Redis), and the embedded {@code local} one otherwise.
 */
public interface TicketKeySourceProvider extends GatewayProvider {
    TicketKeySource create(ProviderContext context);
}
