package io.mqttgw.core.registry;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.spi.LiveSessions;
import io.mqttgw.core.spi.Route;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The node's persistent sessions as a session store sees them. Subscriptions and the session's state are event-loop
 * state, so each event loop reads its own channels in one task; the caller only walks the registry (concurrent) and
 * hands the work out. Thread-safe.
 */
public final class LocalSessions implements LiveSessions {
    private final ChannelRegistry registry;

    public LocalSessions(ChannelRegistry registry) {
        this.registry = registry;
    }

    @Override
    public CompletionStage<List<LiveSession>> snapshot() {
        Map<EventLoop, List<Channel>> byLoop = new HashMap<>();
        registry.forEach(channel -> byLoop.computeIfAbsent(channel.eventLoop(), loop -> new ArrayList<>())
                .add(channel));
        List<CompletableFuture<List<LiveSession>>> parts = new ArrayList<>(byLoop.size());
        byLoop.forEach((loop, channels) -> {
            CompletableFuture<List<LiveSession>> part;
            try {
                part = CompletableFuture.supplyAsync(() -> read(channels), loop);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // the loop is shutting down: its channels are closing, their sessions are no longer this node's
                part = CompletableFuture.completedFuture(List.of());
            }
            parts.add(part);
        });
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            List<LiveSession> all = new ArrayList<>();
            parts.forEach(p -> all.addAll(p.join()));
            return all;
        });
    }

    /** On the channels' event loop. */
    private static List<LiveSession> read(List<Channel> channels) {
        List<LiveSession> out = new ArrayList<>(channels.size());
        for (Channel channel : channels) {
            ConnectionContext context = ConnectionContext.of(channel);
            Route route = context == null ? null : context.route();
            // a session still being read from the store is written there by its own open
            if (route != null && channel.isActive() && context.sessionOpen() && context.persistent()
                    && !context.restoring()) {
                out.add(new LiveSession(context.sessionKey(), route.epoch(), context.subscriptions()));
            }
        }
        return out;
    }
}
