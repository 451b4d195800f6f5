package io.mqttgw.core.spi;

import io.mqttgw.core.config.ConfigException;
import io.mqttgw.core.config.ConfigKey;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Every provider on the class path, found once with ServiceLoader, looked up by the name config gives. */
public final class Providers {
    private final List<AuthenticatorProvider> authenticators;
    private final List<RouteStoreProvider> routeStores;
    private final List<UplinkSinkProvider> uplinkSinks;
    private final List<DownlinkSourceProvider> downlinkSources;
    private final List<SessionStoreProvider> sessionStores;
    private final List<TicketKeySourceProvider> ticketKeySources;

    private Providers(ClassLoader loader) {
        this.authenticators = load(AuthenticatorProvider.class, loader);
        this.routeStores = load(RouteStoreProvider.class, loader);
        this.uplinkSinks = load(UplinkSinkProvider.class, loader);
        this.downlinkSources = load(DownlinkSourceProvider.class, loader);
        this.sessionStores = load(SessionStoreProvider.class, loader);
        this.ticketKeySources = load(TicketKeySourceProvider.class, loader);
    }

    public static Providers discover() {
        return new Providers(Providers.class.getClassLoader());
    }

    private static <T> List<T> load(Class<T> type, ClassLoader loader) {
        List<T> found = new ArrayList<>();
        ServiceLoader.load(type, loader).forEach(found::add);
        return List.copyOf(found);
    }

    /** Open prefixes declared by all providers found. */
    public List<String> openPrefixes() {
        return Stream.of(authenticators, routeStores, uplinkSinks, downlinkSources, sessionStores, ticketKeySources)
                .flatMap(List::stream)
                .flatMap(p -> p.openPrefixes().stream())
                .toList();
    }

    /** Configuration keys declared by all providers found. */
    public List<ConfigKey<?>> configKeys() {
        return Stream.of(authenticators, routeStores, uplinkSinks, downlinkSources, sessionStores, ticketKeySources)
                .flatMap(List::stream)
                .flatMap(p -> p.configKeys().stream())
                .toList();
    }

    public AuthenticatorProvider authenticator(String name) {
        return pick(authenticators, name, "auth.provider");
    }

    public RouteStoreProvider routeStore(String name) {
        return pick(routeStores, name, "routes.provider");
    }

    public UplinkSinkProvider uplinkSink(String name) {
        return pick(uplinkSinks, name, "uplink.sink");
    }

    public DownlinkSourceProvider downlinkSource(String name) {
        return pick(downlinkSources, name, "downlink.source");
    }

    public SessionStoreProvider sessionStore(String name) {
        return pick(sessionStores, name, "session.provider");
    }

    /**
     * The TLS ticket-key source: {@code auto} is the one named like {@code routes.provider} when a module provides
     * one (redis), else {@code local}.
     */
    public TicketKeySourceProvider ticketKeySource(String name, String routesProvider) {
        if ("auto".equals(name)) {
            return ticketKeySources.stream().filter(p -> p.name().equals(routesProvider)).findFirst()
                    .orElseGet(() -> pick(ticketKeySources, "local", "listener.tls.ticket-key-source"));
        }
        return pick(ticketKeySources, name, "listener.tls.ticket-key-source");
    }

    private static <T extends GatewayProvider> T pick(List<T> providers, String name, String key) {
        return providers.stream().filter(p -> p.name().equals(name)).findFirst()
                .orElseThrow(() -> new ConfigException(key + " = '" + name + "' names no provider on the class path; "
                        + "allowed: " + providers.stream().map(GatewayProvider::name).sorted()
                        .collect(Collectors.joining(", "))));
    }
}
