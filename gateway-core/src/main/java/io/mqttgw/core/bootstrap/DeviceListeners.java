package io.mqttgw.core.bootstrap;

import io.mqttgw.core.admission.AdmissionControl;
import io.mqttgw.core.admission.AdmissionGate;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.pipeline.DeviceChannelInitializer;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.unix.UnixChannelOption;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device ports of a node (TLS and plain TCP) as one unit that opens and closes together: bound by the starting
 * thread, closed and re-opened by the overload monitor's thread, closed for good by the thread that drains the node.
 * Each call holds this object's lock, so an overload recovery can never re-open a port the drain has closed.
 */
final class DeviceListeners {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceListeners.class);

    /*
     * No TCP_NODELAY child option: Netty sets it on every accepted socket already (every transport, wherever the
     * platform allows it), and asking again was one more setsockopt per connection (strace).
     * DeviceListenerIT holds it.
     */

    /**
     * One read-size policy shared by every device channel. Netty's default gives each channel its own adaptive
     * allocator and a handle with a size calculator (about 130 B per idle device); device packets and their
     * TLS records are small, so a fixed read size serves them, and larger ones take several reads of one wake-up.
     */
    private static final RecvByteBufAllocator DEVICE_READS = new FixedRecvByteBufAllocator(2048);

    private final GatewayConfig config;
    private final Transport transport;
    private final ByteBufAllocator allocator;
    /** The accept thread's loop; null when each I/O loop accepts on a socket of its own. */
    private final EventLoopGroup acceptGroup;
    private final EventLoopGroup ioGroup;
    private final AdmissionControl admission;
    private final List<DeviceListener> listeners = new ArrayList<>();
    private DeviceListener tls;
    private DeviceListener tcp;
    /** Read by the listeners gauge and readiness on other threads. */
    private volatile boolean accepting;
    private boolean closedForGood;

    DeviceListeners(GatewayConfig config, Transport transport, ByteBufAllocator allocator, EventLoopGroup acceptGroup,
                    EventLoopGroup ioGroup, AdmissionControl admission) {
        this.config = config;
        this.transport = transport;
        this.allocator = allocator;
        this.acceptGroup = acceptGroup;
        this.ioGroup = ioGroup;
        this.admission = admission;
    }

    /** Whether every I/O loop listens on a socket of its own (SO_REUSEPORT) instead of one accept thread. */
    static boolean socketPerLoop(Transport transport, GatewayConfig config) {
        return transport.reusePort() && config.server().reusePort();
    }

    synchronized void bindTls(DeviceChannelInitializer initializer) throws InterruptedException {
        tls = listen("tls", config.tls().bind(), config.tls().port(), initializer, true);
    }

    synchronized void bindTcp(DeviceChannelInitializer initializer) throws InterruptedException {
        tcp = listen("tcp", config.tcp().bind(), config.tcp().port(), initializer, false);
    }

    /** Marks the bound ports as accepting: from here on they count as open for the gauge and readiness. */
    synchronized void started() {
        accepting = !closedForGood;
    }

    private DeviceListener listen(String name, String host, int port, DeviceChannelInitializer initializer,
                                  boolean tlsListener) throws InterruptedException {
        GatewayConfig.Server s = config.server();
        ServerBootstrap template = new ServerBootstrap()
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, s.backlog())
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.ALLOCATOR, allocator)
                .handler(AdmissionGate.perServerChannel(admission, tlsListener,
                        config.admission().rejectDelay().toMillis()))
                .childOption(ChannelOption.ALLOCATOR, allocator)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, DEVICE_READS)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(s.writeBufferLowWaterMark(), s.writeBufferHighWaterMark()))
                .childHandler(initializer);
        List<ServerBootstrap> bootstraps = new ArrayList<>();
        if (socketPerLoop(transport, config)) {
            // Each loop accepts on its own socket and serves what it accepted: no hand-over to another thread, which
            // cost an eventfd write, a wake-up of the target loop and one of the accept thread per connection
            // (strace). The kernel spreads connections over the sockets by their addresses.
            for (EventExecutor loop : ioGroup) {
                // the option every native transport of Netty reads (epoll's option class inherits it)
                bootstraps.add(template.clone().group((EventLoop) loop, (EventLoop) loop)
                        .option(UnixChannelOption.SO_REUSEPORT, true));
            }
        } else {
            bootstraps.add(template.clone().group(acceptGroup, ioGroup));
        }
        DeviceListener listener = new DeviceListener(name, bootstraps, host, port);
        listener.bind();
        listeners.add(listener);
        return listener;
    }

    /** Closes or re-opens every port for overload; does nothing once the node has closed them for good. */
    synchronized void setOpen(boolean open) {
        if (closedForGood) {
            return;
        }
        accepting = open;
        for (DeviceListener l : listeners) {
            if (open) {
                try {
                    l.bind();
                } catch (Exception e) {
                    // Netty's sync() rethrows a bind failure undeclared; the next recovery tries again
                    LOG.error("cannot re-open listener {} after overload: {}", l, e.toString());
                    accepting = false;
                }
            } else {
                l.unbind();
            }
        }
        LOG.warn("listeners {}: {}", open ? "re-opened" : "closed for overload", listeners);
    }

    /** Leaves the open/close decisions of overload from now on: the node is leaving. */
    synchronized void freeze() {
        closedForGood = true;
    }

    /** Closes every port; nothing re-opens them. */
    synchronized void closeForGood() {
        closedForGood = true;
        accepting = false;
        for (DeviceListener l : listeners) {
            l.unbind();
        }
    }

    boolean accepting() {
        return accepting;
    }

    synchronized int tlsPort() {
        return tls == null ? -1 : tls.port();
    }

    synchronized int tcpPort() {
        return tcp == null ? -1 : tcp.port();
    }

    /** Listening sockets now: one per listener, or one per I/O thread with SO_REUSEPORT. */
    synchronized int sockets() {
        return (tls == null ? 0 : tls.sockets()) + (tcp == null ? 0 : tcp.sockets());
    }

    @Override
    public synchronized String toString() {
        return (tls == null ? "tls off" : tls.toString()) + ", " + (tcp == null ? "tcp off" : tcp.toString());
    }
}
