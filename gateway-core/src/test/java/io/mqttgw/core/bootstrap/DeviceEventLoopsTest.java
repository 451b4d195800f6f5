package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.testkit.TestGateway;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the device event loops release the connections they still hold when the node stops. */
class DeviceEventLoopsTest {
    @TempDir
    Path dir;

    /*
     * A loop still busy with work when its shutdown begins (the last bytes of a device that just left, a listener's
     * close) must not stop before it has closed its channels: a channel left open keeps its socket and never tears
     * its pipeline down, so its TLS engine and the listener's context leak. The task below holds the loop past the
     * point where a loop checks whether it is shutting down, until the shutdown has begun.
     */
    @Test
    void closesTheConnectionsOfALoopThatWasBusyWhenItsShutdownBegan() throws Exception {
        GatewayConfig config = TestGateway.tcp(dir).config();
        DeviceEventLoops loops = new DeviceEventLoops(Transport.choose(config.server().transport()), config);
        EventLoop loop = (EventLoop) loops.io().next();
        AtomicReference<Channel> accepted = new AtomicReference<>();
        CountDownLatch active = new CountDownLatch(1);
        CountDownLatch pipelineTornDown = new CountDownLatch(1);
        Channel server = new ServerBootstrap().group(loop, loop)
                .channel(Transport.choose(config.server().transport()).serverChannel())
                .childHandler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        accepted.set(ctx.channel());
                        active.countDown();
                        ctx.fireChannelActive();
                    }

                    @Override
                    public void handlerRemoved(ChannelHandlerContext ctx) {
                        pipelineTornDown.countDown();
                    }
                }).bind("127.0.0.1", 0).sync().channel();
        try (Socket device = new Socket()) {
            device.connect(new InetSocketAddress("127.0.0.1", ((InetSocketAddress) server.localAddress()).getPort()),
                    10_000);
            assertTrue(active.await(30, TimeUnit.SECONDS), "the gateway side of the connection is active");

            CountDownLatch busy = new CountDownLatch(1);
            loop.execute(() -> {
                busy.countDown();
                long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!loop.isShuttingDown() && System.nanoTime() < giveUp) {
                    Thread.onSpinWait();
                }
            });
            assertTrue(busy.await(30, TimeUnit.SECONDS), "the loop runs the task");
            loops.shutdown();

            assertTrue(loop.isTerminated(), "the loop stopped within the shutdown's wait");
            assertTrue(pipelineTornDown.await(5, TimeUnit.SECONDS), "the connection's pipeline was torn down");
            assertFalse(accepted.get().isOpen(), "the connection was closed");
            assertFalse(server.isOpen(), "the listening socket was closed");
            device.setSoTimeout(10_000);
            try (InputStream in = device.getInputStream()) {
                assertEquals(-1, in.read(), "the device saw its connection end");
            }
        } finally {
            loops.shutdown();
        }
    }
}
