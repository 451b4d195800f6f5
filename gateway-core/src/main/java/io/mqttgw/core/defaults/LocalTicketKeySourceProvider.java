package io.mqttgw.core.defaults;

import io.mqttgw.core.spi.ProviderContext;
import io.mqttgw.core.spi.TicketKeySource;
import io.mqttgw.core.spi.TicketKeySourceProvider;

/** {@code listener.tls.ticket-key-source: local}, the default without a shared store. */
public final class LocalTicketKeySourceProvider implements TicketKeySourceProvider {
    @Override
    public String name() {
        return "local";
    }

    @Override
    public TicketKeySource create(ProviderContext context) {
        return new LocalTicketKeySource();
    }
}
