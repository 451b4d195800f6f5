package io.mqttgw.core.tls;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;

/**
 * The channel's allocator with a floor under direct buffers, for the first flush after a TLS 1.3 handshake only
 * ({@link TlsHandshakeHandler#flush}).
 *
 * <p>BoringSSL holds a TLS 1.3 server's two NewSessionTickets until the server's first write; each ticket carries the
 * device certificate (about 1.1 KB each with a P-256 device certificate). Netty's {@code SslHandler} sizes the
 * buffer that write is encrypted into from the plaintext (a CONNACK: 4 bytes, some 50 with the engine's allowance for
 * record overhead), and the OpenSSL engine hands out the waiting tickets only as far as that buffer reaches: the first
 * CONNACK of every connection took over 40 passes through the engine, each with its own buffer, two promises and
 * several JNI calls (an allocation profile of resumed reconnects, issue 15; {@code TlsHandshakeHandlerTest}). Through this allocator the first pass gets room for both
 * tickets and the record. Only {@code directBuffer} is floored: that is what the engine's output buffers come from;
 * the packet encoder's {@code buffer()} calls keep their exact sizes.
 */
final class TicketFlightAllocator implements ByteBufAllocator {
    /** Two tickets carrying a certificate chain of up to about 3.5 KB each, and the record written with them. */
    static final int FLIGHT_BYTES = 8192;

    private final ByteBufAllocator delegate;

    TicketFlightAllocator(ByteBufAllocator delegate) {
        this.delegate = delegate;
    }

    @Override
    public ByteBuf directBuffer(int initialCapacity) {
        return delegate.directBuffer(Math.max(initialCapacity, FLIGHT_BYTES));
    }

    @Override
    public ByteBuf directBuffer(int initialCapacity, int maxCapacity) {
        return delegate.directBuffer(Math.min(Math.max(initialCapacity, FLIGHT_BYTES), maxCapacity), maxCapacity);
    }

    @Override
    public ByteBuf directBuffer() {
        return delegate.directBuffer();
    }

    @Override
    public ByteBuf buffer() {
        return delegate.buffer();
    }

    @Override
    public ByteBuf buffer(int initialCapacity) {
        return delegate.buffer(initialCapacity);
    }

    @Override
    public ByteBuf buffer(int initialCapacity, int maxCapacity) {
        return delegate.buffer(initialCapacity, maxCapacity);
    }

    @Override
    public ByteBuf ioBuffer() {
        return delegate.ioBuffer();
    }

    @Override
    public ByteBuf ioBuffer(int initialCapacity) {
        return delegate.ioBuffer(initialCapacity);
    }

    @Override
    public ByteBuf ioBuffer(int initialCapacity, int maxCapacity) {
        return delegate.ioBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public ByteBuf heapBuffer() {
        return delegate.heapBuffer();
    }

    @Override
    public ByteBuf heapBuffer(int initialCapacity) {
        return delegate.heapBuffer(initialCapacity);
    }

    @Override
    public ByteBuf heapBuffer(int initialCapacity, int maxCapacity) {
        return delegate.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public CompositeByteBuf compositeBuffer() {
        return delegate.compositeBuffer();
    }

    @Override
    public CompositeByteBuf compositeBuffer(int maxNumComponents) {
        return delegate.compositeBuffer(maxNumComponents);
    }

    @Override
    public CompositeByteBuf compositeHeapBuffer() {
        return delegate.compositeHeapBuffer();
    }

    @Override
    public CompositeByteBuf compositeHeapBuffer(int maxNumComponents) {
        return delegate.compositeHeapBuffer(maxNumComponents);
    }

    @Override
    public CompositeByteBuf compositeDirectBuffer() {
        return delegate.compositeDirectBuffer();
    }

    @Override
    public CompositeByteBuf compositeDirectBuffer(int maxNumComponents) {
        return delegate.compositeDirectBuffer(maxNumComponents);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return delegate.isDirectBufferPooled();
    }

    @Override
    public int calculateNewCapacity(int minNewCapacity, int maxCapacity) {
        return delegate.calculateNewCapacity(minNewCapacity, maxCapacity);
    }
}
