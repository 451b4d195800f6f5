package io.mqttgw.core.bootstrap;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The socket transport: epoll where the native library loads, NIO otherwise (logged, since it costs more CPU);
 * io_uring only when asked for by name, until it has been measured to cost less than epoll per message.
 * {@code reusePort}: whether listening sockets can share a port (SO_REUSEPORT), so that each event loop accepts on its
 * own socket.
 */
record Transport(String name, IoHandlerFactory ioHandlerFactory, Class<? extends ServerChannel> serverChannel,
                 boolean reusePort) {
    private static final Logger LOG = LoggerFactory.getLogger(Transport.class);

    static final String IO_URING = "io_uring";
    static final String EPOLL = "epoll";
    static final String NIO = "nio";

    static Transport choose(String configured) {
        // a native transport is only probed when it may be chosen: the probe loads its library (and io_uring's opens
        // a ring)
        boolean ioUring = IO_URING.equals(configured);
        String ioUringCause = ioUring ? causeOf(IoUring.isAvailable(), IoUring.unavailabilityCause()) : null;
        String epollCause = ioUring || NIO.equals(configured) ? null
                : causeOf(Epoll.isAvailable(), Epoll.unavailabilityCause());
        String name = decide(configured, ioUringCause, epollCause);
        switch (name) {
            case IO_URING:
                // which kernel features the ring found (multishot accept and receive, buffer rings) is what a
                // benchmark of this transport needs to be read against
                LOG.info("io_uring transport: {}", IoUring.featureString());
                return new Transport(IO_URING, IoUringIoHandler.newFactory(), IoUringServerSocketChannel.class, true);
            case EPOLL:
                return new Transport(EPOLL, EpollIoHandler.newFactory(), EpollServerSocketChannel.class, true);
            default:
                return new Transport(NIO, NioIoHandler.newFactory(), NioServerSocketChannel.class, false);
        }
    }

    /**
     * The transport to run for {@code server.transport = configured}, given why io_uring and epoll cannot run here
     * (null: they can, or {@code configured} cannot choose them). A native transport asked for by name that cannot run
     * stops startup: the operator chose it, so running another one silently would make every figure taken on this node
     * wrong.
     *
     * @throws IllegalStateException naming the key, the value and the cause
     */
    static String decide(String configured, String ioUringCause, String epollCause) {
        switch (configured) {
            case IO_URING:
                if (ioUringCause != null) {
                    throw new IllegalStateException("server.transport = io_uring but io_uring is unavailable: "
                            + ioUringCause + "; use auto, epoll or nio");
                }
                return IO_URING;
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

    private static String causeOf(boolean available, Throwable cause) {
        return available ? null : String.valueOf(cause);
    }
}
