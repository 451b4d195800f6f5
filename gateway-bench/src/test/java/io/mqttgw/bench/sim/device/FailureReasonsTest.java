package io.mqttgw.bench.sim.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.ConnectTimeoutException;
import java.net.BindException;
import java.net.ConnectException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

class FailureReasonsTest {

    @Test
    void classifiesByExceptionTypeIncludingCauses() {
        assertEquals("connect_refused", FailureReasons.of(new ConnectException("x")));
        assertEquals("connect_timeout", FailureReasons.of(new ConnectTimeoutException("x")));
        assertEquals("source_address_unavailable", FailureReasons.of(new BindException("x")));
        assertEquals("tls_handshake_failed",
                FailureReasons.of(new IllegalStateException(new SSLHandshakeException("x"))));
    }

    @Test
    void unknownExceptionsAreNamedByClass() {
        assertEquals("other_IllegalArgumentException", FailureReasons.of(new IllegalArgumentException()));
    }
}
