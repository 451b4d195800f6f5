package io.mqttgw.core.bootstrap;

import io.mqttgw.core.config.CoreConfigKeys;
import io.mqttgw.core.config.ListenerBindException;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The listening sockets for devices on one port, which the overload reaction can close and bind again: one socket and
 * an accept thread, or one socket per event loop sharing the port (SO_REUSEPORT), each accepting for its own loop
 * ({@code server.reuse-port}). The port the first socket got is kept, so the others and a re-bind use it even when
 * the configuration said 0. Not thread-safe: the gateway calls it from start, shutdown and the overload monitor's
 * thread, under its own lock.
 */
final class DeviceListener {
    private final String name;
    private final List<ServerBootstrap> bootstraps;
    private final String host;
    private int port;
    private final List<Channel> channels = new ArrayList<>();

    DeviceListener(String name, List<ServerBootstrap> bootstraps, String host, int port) {
        this.name = name;
        this.bootstraps = List.copyOf(bootstraps);
        this.host = host;
        this.port = port;
    }

    void bind() throws InterruptedException {
        if (!channels.isEmpty()) {
            return;
        }
        try {
            for (ServerBootstrap bootstrap : bootstraps) {
                Channel channel = bootstrap.bind(host, port).sync().channel();
                channels.add(channel);
                port = ((InetSocketAddress) channel.localAddress()).getPort();
            }
        } catch (InterruptedException | RuntimeException e) {
            unbind();
            throw e;
        } catch (Exception e) {
            // Netty's sync() rethrows the socket's bind failure (a checked exception it does not declare)
            unbind();
            throw new ListenerBindException("tls".equals(name) ? CoreConfigKeys.TLS_PORT : CoreConfigKeys.TCP_PORT,
                    host, port, e);
        }
    }

    void unbind() {
        for (Channel channel : channels) {
            channel.close().awaitUninterruptibly();
        }
        channels.clear();
    }

    boolean bound() {
        return !channels.isEmpty();
    }

    int port() {
        return port;
    }

    /** Listening sockets while bound: 1, or one per event loop. */
    int sockets() {
        return channels.size();
    }

    @Override
    public String toString() {
        return name + " " + host + ":" + port + (bound() ? "" : " (closed)")
                + (bootstraps.size() > 1 ? " (" + bootstraps.size() + " sockets, SO_REUSEPORT)" : "");
    }
}
