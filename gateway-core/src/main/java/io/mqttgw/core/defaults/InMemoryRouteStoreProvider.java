package io.mqttgw.core.defaults;

import io.mqttgw.core.spi.ProviderContext;
import io.mqttgw.core.spi.RouteStore;
import io.mqttgw.core.spi.RouteStoreProvider;

/** {@code routes.provider: memory}, the default. */
public final class InMemoryRouteStoreProvider implements RouteStoreProvider {
    @Override
    public String name() {
        return "memory";
    }

    @Override
    public RouteStore create(ProviderContext context) {
        InMemoryRouteStore store = new InMemoryRouteStore(context.nodeId());
        context.meters().gauge("mqttgw.routes.memory.size", store, InMemoryRouteStore::size);
        return store;
    }
}
