package io.mqttgw.core.bootstrap;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The socket transport: epoll where the native library loads, NIO otherwise (logged, since it costs more CPU).
 * {@code reusePort}: whether listening sockets can share a port (SO_REUSEPORT), so that each event loop accepts on its
 * own socket.
 */
record Transport(String name, IoHandlerFactory ioHandlerFactory, Class<? extends ServerChannel> serverChannel,
                 boolean reusePort) {
    private static final Logger LOG = LoggerFactory.getLogger(Transport.class);

    static Transport choose(String configured) {
        if (!"nio".equals(configured)) {
            if (Epoll.isAvailable()) {
                return new Transport("epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class, true);
            }
            if ("epoll".equals(configured)) {
                throw new IllegalStateException("server.transport = epoll but epoll is unavailable: "
                        + Epoll.unavailabilityCause() + "; use auto or nio");
            }
            LOG.warn("epoll unavailable ({}); using NIO", String.valueOf(Epoll.unavailabilityCause()));
        }
        return new Transport("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class, false);
    }
}
