package io.mqttgw.core.bootstrap;

import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.eventloop.ClosingIoEventLoopGroup;
import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The event loops the device listeners run on: one accept loop (none when every I/O loop has a listening socket of
 * its own) and the I/O loops that own the connections, with the buffer allocator their channels use
 * ({@code server.allocator}). Made before anything binds, shut down after the node's
 * providers were flushed, so the last acknowledgements still reach the devices.
 *
 * <p>Made and shut down by the thread that starts and stops the node; the loops' own threads are named
 * {@code mqtt-accept} and {@code mqtt-io} for thread dumps and profiles.
 */
final class DeviceEventLoops {
    private final EventLoopGroup accept;
    private final EventLoopGroup io;
    private final ByteBufAllocator allocator;

    DeviceEventLoops(Transport transport, GatewayConfig config) {
        this.allocator = "adaptive".equals(config.server().allocator())
                ? new AdaptiveByteBufAllocator() : PooledByteBufAllocator.DEFAULT;
        // not made at all when unused: an idle loop still holds an epoll, an eventfd and a timerfd
        this.accept = DeviceListeners.socketPerLoop(transport, config) ? null
                : new ClosingIoEventLoopGroup(1, new DefaultThreadFactory("mqtt-accept", true),
                        transport.ioHandlerFactory());
        try {
            this.io = new ClosingIoEventLoopGroup(config.server().effectiveIoThreads(),
                    new DefaultThreadFactory("mqtt-io", true), transport.ioHandlerFactory());
        } catch (RuntimeException | Error e) {
            // the node's close never sees a half-made pair: release the accept loop here
            if (accept != null) {
                accept.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
            }
            throw e;
        }
    }

    /** The accept loop, or null when the listeners bind one socket per I/O loop. */
    EventLoopGroup accept() {
        return accept;
    }

    EventLoopGroup io() {
        return io;
    }

    ByteBufAllocator allocator() {
        return allocator;
    }

    /** Closes what the loops still hold; waits up to two seconds each, I/O loops first. */
    void shutdown() {
        for (EventLoopGroup group : new EventLoopGroup[] {io, accept}) {
            if (group != null) {
                group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
            }
        }
    }
}
