package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The device listening sockets as devices meet them: with {@code server.reuse-port} (the default, epoll) every I/O
 * thread accepts on its own socket of the shared port and serves what it accepted; without it one socket and an accept
 * thread hand connections over. Either way the device's socket has TCP_NODELAY (set by Netty, not asked twice).
 */
class DeviceListenerIT {
    private static final int DEVICES = 24;

    @TempDir
    Path dir;

    @Test
    void eachIoThreadAcceptsAndServesItsOwnDevicesOnTheSharedPort() throws Exception {
        try (Gateway gateway = TestGateway.tcp(dir).start(); Devices devices = Devices.connect(gateway)) {
            assertEquals(2, gateway.listeningSockets(), "one listening socket per I/O thread");
            Set<EventLoop> loops = new HashSet<>();
            for (Channel device : devices.channels()) {
                assertSame(device.parent().eventLoop(), device.eventLoop(),
                        "served by the loop that accepted it, without a hand-over");
                assertTrue(device.config().getOption(ChannelOption.TCP_NODELAY), "TCP_NODELAY");
                loops.add(device.eventLoop());
            }
            assertEquals(2, loops.size(), "the kernel spread " + DEVICES + " devices over both sockets");
        }
    }

    @Test
    void oneSocketAndAnAcceptThreadWithoutReusePort() throws Exception {
        try (Gateway gateway = TestGateway.tcp(dir).with("server.reuse-port", "false").start();
             Devices devices = Devices.connect(gateway)) {
            assertEquals(1, gateway.listeningSockets());
            for (Channel device : devices.channels()) {
                assertNotSame(device.parent().eventLoop(), device.eventLoop(), "accepted on the accept thread");
                assertTrue(device.config().getOption(ChannelOption.TCP_NODELAY), "TCP_NODELAY");
            }
        }
    }

    /** {@link #DEVICES} connected devices and their channels in the gateway, open until closed. */
    private record Devices(List<RawMqttConnection> connections, List<Channel> channels) implements AutoCloseable {
        static Devices connect(Gateway gateway) throws Exception {
            Devices devices = new Devices(new ArrayList<>(), new ArrayList<>());
            try {
                for (int i = 0; i < DEVICES; i++) {
                    RawMqttConnection c = RawMqttConnection.tcp(gateway.tcpPort());
                    devices.connections.add(c);
                    assertEquals(0, c.connect("dev-" + i, 60), "CONNACK accepted");
                    Channel channel = gateway.registry().find("dev-" + i);
                    assertNotNull(channel, "dev-" + i + " registered");
                    devices.channels.add(channel);
                }
                return devices;
            } catch (Exception | AssertionError e) {
                devices.close();
                throw e;
            }
        }

        @Override
        public void close() throws java.io.IOException {
            for (RawMqttConnection c : connections) {
                c.close();
            }
        }
    }
}
