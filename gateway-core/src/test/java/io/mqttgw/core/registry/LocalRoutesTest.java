package io.mqttgw.core.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.spi.Route;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LocalRoutesTest {
    private final ChannelRegistry registry = new ChannelRegistry(16);
    private final LocalRoutes routes = new LocalRoutes(registry);

    private EmbeddedChannel session(String clientId, long epoch) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ConnectionContext c = new ConnectionContext("tls");
        ch.attr(ConnectionContext.KEY).set(c);
        c.openSession(clientId, new Route(clientId, "node-a", epoch, 0, "127.0.0.1:1"), null, TopicAcl.ALLOW_ALL,
                false);
        registry.register(clientId, ch);
        return ch;
    }

    @Test
    void closesTheSessionWhoseRouteTheOtherNodeReplaced() {
        EmbeddedChannel ch = session("dev-1", 41);
        routes.takenOver("dev-1", 41);
        ch.runPendingTasks();
        assertFalse(ch.isOpen());
        assertEquals(DisconnectReason.TAKEOVER, ConnectionContext.of(ch).closeReason());
    }

    @Test
    void keepsANewerSessionWhenTheTakeoverNamesAnOlderEpoch() {
        EmbeddedChannel ch = session("dev-1", 42);
        routes.takenOver("dev-1", 41);
        ch.runPendingTasks();
        assertTrue(ch.isOpen(), "a late takeover never closes the device's newer connection");
        routes.takenOver("dev-unknown", 1);
        ch.finishAndReleaseAll();
    }

    @Test
    void listsTheRoutesOfOpenSessions() {
        EmbeddedChannel a = session("dev-a", 1);
        EmbeddedChannel b = session("dev-b", 2);
        List<String> seen = new ArrayList<>();
        routes.forEachLiveRoute(r -> seen.add(r.clientId() + "@" + r.epoch()));
        seen.sort(String::compareTo);
        assertEquals(List.of("dev-a@1", "dev-b@2"), seen);
        a.finishAndReleaseAll();
        b.finishAndReleaseAll();
    }
}
