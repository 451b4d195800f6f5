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
 * own socket. Netty's io_uring transport was measured against epoll and cost more per message (BENCHMARKS.md), so it
 * is not offered.
 */
record Transport(String name, IoHandlerFactory ioHandlerFactory, Class<? extends ServerChannel> serverChannel,
                 boolean reusePort) {
    private static final Logger LOG = LoggerFactory.getLogger(Transport.class);

    static final String EPOLL = "epoll";
    static final String NIO = "nio";

    static Transport choose(String configured) {
        // epoll is only probed when it may be chosen: the probe loads its native library
        String epollCause = NIO.equals(configured) ? null
                : Epoll.isAvailable() ? null : String.valueOf(Epoll.unavailabilityCause());
        if (EPOLL.equals(decide(configured, epollCause))) {
            return new Transport(EPOLL, EpollIoHandler.newFactory(), EpollServerSocketChannel.class, true);
        }
        return new Transport(NIO, NioIoHandler.newFactory(), NioServerSocketChannel.class, false);
    }

    /**
     * The transport to run for {@code server.transport = configured}, given why epoll cannot run here (null: it can,
     * or {@code configured} cannot choose it). epoll asked for by name that cannot run stops startup: the operator
     * chose it, so running NIO silently would make every figure taken on this node wrong.
     *
     * @throws IllegalStateException naming the key, the value and the cause
     */
    static String decide(String configured, String epollCause) {
        switch (configured) {
            case EPOLL:
                if (epollCause != null) {
                    throw new IllegalStateException("server.transport = epoll but epoll is unavailable: "
                            + epollCause + "; use auto or nio");
                }
                return EPOLL;
            case NIO:
                return NIO;
            default:
                if (epollCause == null) {
                    return EPOLL;
                }
                LOG.warn("epoll unavailable ({}); using NIO", epollCause);
                return NIO;
        }
    }
}
