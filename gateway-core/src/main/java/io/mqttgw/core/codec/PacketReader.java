package io.mqttgw.core.codec;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.util.ByteProcessor;
import io.netty.util.concurrent.FastThreadLocal;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * One packet's body as it is read: fields by absolute index up to {@link #end}, never moving the buffer's reader
 * index. A broken layout ends the read at once ({@link #refuse}); a field whose content is refused (ill-formed
 * UTF-8, U+0000, a field reaching past {@code mqtt.max-packet-size} counted with the fixed header) is only noted,
 * the first one, and the layout is still checked to its end, so a packet is refused for its layout first. After a
 * refused content nothing more is decoded. One instance per packet; event loop only.
 */
final class PacketReader {
    /** A CharsetDecoder per event loop: it holds state while decoding, and is reset for each string. */
    private static final FastThreadLocal<CharsetDecoder> UTF8 = new FastThreadLocal<>() {
        @Override
        protected CharsetDecoder initialValue() {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT);
        }
    };
    /** Stops at the first byte that is not ASCII other than NUL (negative as a byte) or is NUL. */
    private static final ByteProcessor PLAIN_ASCII = b -> b > 0;

    final ByteBuf buf;
    /** The index of the body's first byte, after the fixed header. */
    final int start;
    final int end;
    /** The index after which a field makes the packet, with its fixed header, larger than allowed. */
    private final int limit;
    /** Counted for U+0000 in a string: a PUBLISH's variable header counts it as a bad topic. */
    Violation nul = Violations.NUL_CHARACTER;
    /** The first refused field content; null while there is none. */
    Violation content;
    /** The last property block read by {@link PropertiesDecoding#read}. */
    MqttProperties properties;

    PacketReader(ByteBuf buf, int start, int end, int limit) {
        this.buf = buf;
        this.start = start;
        this.end = end;
        this.limit = limit;
    }

    /** Ends the read of a packet whose layout breaks {@code violation}; caught where the packet is decoded. */
    static Refused refuse(Violation violation) {
        return new Refused(violation);
    }

    /** Notes a refused content unless an earlier field's content was refused already. */
    void refuseContent(Violation violation) {
        if (content == null) {
            content = violation;
        }
    }

    /** Whether fields are still decoded: no content was refused so far. */
    boolean decoding() {
        return content == null;
    }

    /**
     * Reading up to {@code index}: a field past the size limit is refused before its content is looked at, as one
     * over the limit is not decoded.
     */
    void reach(int index) {
        if (index > limit) {
            refuseContent(Violations.FIELDS_TOO_LARGE);
        }
    }

    /** The index after the two-byte-length-prefixed field at {@code p}, or -1 when it does not fit before end. */
    int fieldEnd(int p) {
        if (p < 0 || p + 2 > end) {
            return -1;
        }
        int after = p + 2 + buf.getUnsignedShort(p);
        return after <= end ? after : -1;
    }

    /** The UTF-8 string of the field at {@code p} ending at {@code fieldEnd}; null once a content was refused. */
    String string(int p, int fieldEnd) {
        reach(fieldEnd);
        if (content != null) {
            return null;
        }
        int at = p + 2;
        int length = fieldEnd - at;
        if (length == 0) {
            return "";
        }
        if (buf.forEachByte(at, length, PLAIN_ASCII) < 0) {
            return buf.toString(at, length, StandardCharsets.US_ASCII);
        }
        String s = decodeUtf8(at, length);
        if (s != null && s.indexOf('\u0000') >= 0) {
            refuseContent(nul);
            return null;
        }
        return s;
    }

    private String decodeUtf8(int at, int length) {
        ByteBuffer bytes;
        if (buf.nioBufferCount() == 1) {
            bytes = buf.nioBuffer(at, length);
        } else {
            byte[] copy = new byte[length];
            buf.getBytes(at, copy);
            bytes = ByteBuffer.wrap(copy);
        }
        try {
            CharBuffer chars = UTF8.get().decode(bytes);
            return chars.toString();
        } catch (CharacterCodingException e) {
            refuseContent(Violations.INVALID_UTF8);
            return null;
        }
    }

    /** The binary data of the field at {@code p} ending at {@code fieldEnd}; null once a content was refused. */
    byte[] bytes(int p, int fieldEnd) {
        reach(fieldEnd);
        if (content != null) {
            return null;
        }
        byte[] b = new byte[fieldEnd - p - 2];
        buf.getBytes(p + 2, b);
        return b;
    }

    /** A refused layout, thrown within the decoding of one packet only: a value by the time it leaves it. */
    static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient Violation violation;

        Refused(Violation violation) {
            super(violation.rule(), null, false, false);
            this.violation = violation;
        }
    }
}
