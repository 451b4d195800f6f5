package io.mqttgw.core.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

class AdminTlsRefusalHandlerTest {
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final AdminTlsRefusalHandler handler = new AdminTlsRefusalHandler(new AdminMetrics(meters));

    private double refused() {
        var counter = meters.find("mqttgw.admin.connections.closed").tag("reason", "tls_handshake").counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void countsAndClosesARefusedHandshake() {
        EmbeddedChannel channel = new EmbeddedChannel(handler);
        channel.pipeline().fireUserEventTriggered(new SslHandshakeCompletionEvent(
                new SSLHandshakeException("PEER_DID_NOT_RETURN_A_CERTIFICATE")));
        assertEquals(1.0, refused());
        assertFalse(channel.isOpen());
    }

    @Test
    void swallowsTheTlsExceptionOfARefusedHandshakeCountedByItsEvent() {
        EmbeddedChannel channel = new EmbeddedChannel(handler);
        channel.pipeline().fireExceptionCaught(new DecoderException(new SSLHandshakeException("bad certificate")));
        channel.checkException();
        assertFalse(channel.isOpen());
        assertEquals(0.0, refused(), "counted once, from the handshake's completion event");
    }

    @Test
    void passesOtherExceptionsOn() {
        EmbeddedChannel channel = new EmbeddedChannel(handler);
        IllegalStateException other = new IllegalStateException("not TLS");
        channel.pipeline().fireExceptionCaught(other);
        assertSame(other, assertThrows(IllegalStateException.class, channel::checkException));
        assertEquals(0.0, refused());
    }

    @Test
    void leavesThePipelineOnceTheHandshakeSucceeded() {
        EmbeddedChannel channel = new EmbeddedChannel(handler);
        channel.pipeline().fireUserEventTriggered(SslHandshakeCompletionEvent.SUCCESS);
        assertNull(channel.pipeline().get(AdminTlsRefusalHandler.class));
        assertTrue(channel.isOpen());
        assertEquals(0.0, refused());
        assertFalse(channel.finishAndReleaseAll());
    }
}
