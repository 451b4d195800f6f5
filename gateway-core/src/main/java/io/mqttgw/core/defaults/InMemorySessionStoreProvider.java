package io.mqttgw.core.defaults;

import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.spi.ProviderContext;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.spi.SessionStoreProvider;

/** {@code session.provider: memory}, the default: sessions and retained messages of this node only. */
public final class InMemorySessionStoreProvider implements SessionStoreProvider {
    @Override
    public String name() {
        return "memory";
    }

    @Override
    public SessionStore create(ProviderContext context) {
        GatewayConfig.Session config = context.config().session();
        InMemorySessionStore store = new InMemorySessionStore(config.expiry().toMillis(), config.maxPending(),
                config.maxRetained(), config.maxSessions(), System::currentTimeMillis);
        context.meters().gauge("mqttgw.sessions.memory.size", store, InMemorySessionStore::sessions);
        io.micrometer.core.instrument.FunctionCounter.builder("mqttgw.sessions.evicted", store,
                        InMemorySessionStore::evictedCount)
                .description("Persistent sessions deleted to stay within session.max-sessions, the longest "
                        + "disconnected first").register(context.meters());
        context.meters().gauge("mqttgw.retained.memory.size", store, InMemorySessionStore::retainedCount);
        return store;
    }
}
