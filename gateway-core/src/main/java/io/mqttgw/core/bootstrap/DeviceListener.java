package io.mqttgw.core.bootstrap;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import java.net.InetSocketAddress;

/**
 * One listening socket for devices, which the overload reaction can close and bind again. The port it got at the
 * first bind is kept, so a re-bind reuses it even when the configuration said 0. Not thread-safe: the gateway calls
 * it from start, shutdown and the overload monitor's thread, under its own lock.
 */
final class DeviceListener {
    private final String name;
    private final ServerBootstrap bootstrap;
    private final String host;
    private int port;
    private Channel channel;

    DeviceListener(String name, ServerBootstrap bootstrap, String host, int port) {
        this.name = name;
        this.bootstrap = bootstrap;
        this.host = host;
        this.port = port;
    }

    void bind() throws InterruptedException {
        if (channel == null) {
            channel = bootstrap.bind(host, port).sync().channel();
            port = ((InetSocketAddress) channel.localAddress()).getPort();
        }
    }

    void unbind() {
        if (channel != null) {
            channel.close().awaitUninterruptibly();
            channel = null;
        }
    }

    boolean bound() {
        return channel != null;
    }

    int port() {
        return port;
    }

    @Override
    public String toString() {
        return name + " " + host + ":" + port + (bound() ? "" : " (closed)");
    }
}
