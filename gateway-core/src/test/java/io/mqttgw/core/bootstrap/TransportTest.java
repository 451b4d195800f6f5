package io.mqttgw.core.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.testkit.TestGateway;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which socket transport {@code server.transport} runs, for each value, where io_uring and epoll can or cannot run
 * (the causes are given, so every case is decided on any machine).
 */
class TransportTest {
    private static final String NO_IO_URING = "java.lang.UnsupportedOperationException: io_uring_setup: "
            + "Operation not permitted";
    private static final String NO_EPOLL = "java.lang.UnsatisfiedLinkError: no netty_transport_native_epoll";

    @TempDir
    Path dir;

    @Test
    void acceptsIoUringAsAValueOfTheTransportKey() {
        assertEquals("io_uring", TestGateway.tcp(dir).with("server.transport", "io_uring").config().server()
                .transport());
    }

    @Test
    void runsIoUringWhenNamedAndAvailable() {
        assertEquals("io_uring", Transport.decide("io_uring", null, null));
        assertEquals("io_uring", Transport.decide("io_uring", null, NO_EPOLL));
    }

    @Test
    void refusesToStartWhenNamedIoUringIsUnavailableAndSaysWhy() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Transport.decide("io_uring", NO_IO_URING, null));
        assertTrue(e.getMessage().startsWith("server.transport = io_uring but io_uring is unavailable: "),
                e.getMessage());
        assertTrue(e.getMessage().contains(NO_IO_URING), e.getMessage());
    }

    @Test
    void autoKeepsEpollEvenWhereIoUringRuns() {
        assertEquals("epoll", Transport.decide("auto", null, null));
    }

    @Test
    void autoFallsBackToNioWithoutEpoll() {
        assertEquals("nio", Transport.decide("auto", null, NO_EPOLL));
        assertEquals("nio", Transport.decide("auto", NO_IO_URING, NO_EPOLL));
    }

    @Test
    void refusesToStartWhenNamedEpollIsUnavailable() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Transport.decide("epoll", null, NO_EPOLL));
        assertTrue(e.getMessage().startsWith("server.transport = epoll but epoll is unavailable: "), e.getMessage());
        assertTrue(e.getMessage().contains(NO_EPOLL), e.getMessage());
    }

    @Test
    void runsNioWhenNamedWhateverElseIsAvailable() {
        assertEquals("nio", Transport.decide("nio", null, null));
    }
}
