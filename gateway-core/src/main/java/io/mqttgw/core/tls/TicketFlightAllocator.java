package io.mqttgw.core.tls;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The channel's allocator with a floor under direct buffers, for the first flush after a TLS 1.3 handshake only
 * ({@link TlsHandshakeHandler#flush}).
 *
 * <p>BoringSSL holds a TLS 1.3 server's two NewSessionTickets until the server's first write; each ticket carries the
 * device certificate (about 1.1 KB each with a P-256 device certificate). Netty's {@code SslHandler} sizes the
 * buffer that write is encrypted into from the plaintext (a CONNACK: 4 bytes, some 50 with the engine's allowance for
 * record overhead), and the OpenSSL engine hands out the waiting tickets only as far as that buffer reaches: the first
 * CONNACK of every connection took over 40 passes through the engine, each with its own buffer, two promises and
 * several JNI calls (an allocation profile of resumed reconnects; {@code TlsHandshakeHandlerTest}). Through
 * this allocator the first pass gets room for both tickets and the record. Every direct buffer made through it is
 * floored, but during that flush only the TLS handler allocates (the packet was encoded when it was written).
 */
final class TicketFlightAllocator extends AbstractByteBufAllocator {
    /** Two tickets carrying a certificate chain of up to about 3.5 KB each, and the record written with them. */
    static final int FLIGHT_BYTES = 8192;

    private final ByteBufAllocator delegate;

    TicketFlightAllocator(ByteBufAllocator delegate) {
        super(true);
        this.delegate = delegate;
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        return delegate.directBuffer(Math.min(Math.max(initialCapacity, FLIGHT_BYTES), maxCapacity), maxCapacity);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return delegate.heapBuffer(initialCapacity, maxCapacity);
    }

    boolean wraps(ByteBufAllocator allocator) {
        return delegate == allocator;
    }

    @Override
    public boolean isDirectBufferPooled() {
        return delegate.isDirectBufferPooled();
    }
}
