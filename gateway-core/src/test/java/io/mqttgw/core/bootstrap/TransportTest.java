package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.config.ConfigException;
import io.mqttgw.core.testkit.TestGateway;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which socket transport {@code server.transport} runs, for each value, where epoll can or cannot run (the cause is
 * given, so every case is decided on any machine).
 */
class TransportTest {
    private static final String NO_EPOLL = "java.lang.UnsatisfiedLinkError: no netty_transport_native_epoll";

    @TempDir
    Path dir;

    @Test
    void refusesIoUringAsAValueOfTheTransportKey() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> TestGateway.tcp(dir).with("server.transport", "io_uring").config());
        assertTrue(e.getMessage().contains("server.transport"), e.getMessage());
    }

    @Test
    void autoRunsEpollWhereItLoads() {
        assertEquals("epoll", Transport.decide("auto", null));
    }

    @Test
    void autoFallsBackToNioWithoutEpoll() {
        assertEquals("nio", Transport.decide("auto", NO_EPOLL));
    }

    @Test
    void refusesToStartWhenNamedEpollIsUnavailable() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Transport.decide("epoll", NO_EPOLL));
        assertTrue(e.getMessage().startsWith("server.transport = epoll but epoll is unavailable: "), e.getMessage());
        assertTrue(e.getMessage().contains(NO_EPOLL), e.getMessage());
    }

    @Test
    void runsNioWhenNamedWhateverElseIsAvailable() {
        assertEquals("nio", Transport.decide("nio", null));
    }
}
