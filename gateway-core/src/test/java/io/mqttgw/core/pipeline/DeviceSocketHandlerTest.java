package io.mqttgw.core.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.testkit.ProtocolFixture;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The device socket's entry: bytes metered and the connection's books (the books' cases are in
 * {@link ConnectionLifecycleHandlerTest}), one shared entry at the head of every device pipeline.
 */
class DeviceSocketHandlerTest {
    @TempDir
    Path dir;

    private ProtocolFixture f;
    private final List<EmbeddedChannel> channels = new ArrayList<>();

    @BeforeEach
    void fixture() {
        f = ProtocolFixture.create(dir);
    }

    @AfterEach
    void finish() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    private EmbeddedChannel add(EmbeddedChannel ch) {
        channels.add(ch);
        return ch;
    }

    @Test
    void countsTheBytesThatCrossTheSocketBothWays() {
        EmbeddedChannel ch = add(new EmbeddedChannel(new DeviceSocketHandler(f.services)));
        ch.attr(ConnectionContext.KEY).set(new ConnectionContext("tcp"));

        ch.writeInbound(Unpooled.wrappedBuffer(new byte[5]));
        ch.writeOutbound(Unpooled.wrappedBuffer(new byte[3]));
        ch.writeOutbound(Unpooled.wrappedBuffer(new byte[4]));
        ch.writeInbound("not bytes");

        assertEquals(5.0, f.counter("mqttgw.received"));
        assertEquals(7.0, f.counter("mqttgw.sent"));
        assertEquals(1, f.metrics.channelsOpen(), "and the connection's books opened");
    }

    @Test
    void everyDeviceChannelSharesTheSocketAndOutboundEntries() {
        DeviceChannelInitializer initializer = new DeviceChannelInitializer("tcp", f.services, null, null, false);
        EmbeddedChannel a = add(new EmbeddedChannel(initializer));
        EmbeddedChannel b = add(new EmbeddedChannel(initializer));

        assertEquals(HandlerNames.SOCKET, a.pipeline().names().get(0), "nearest the socket");
        assertSame(a.pipeline().get(HandlerNames.SOCKET), b.pipeline().get(HandlerNames.SOCKET));
        assertSame(a.pipeline().get(HandlerNames.OUTBOUND), b.pipeline().get(HandlerNames.OUTBOUND));
    }
}
