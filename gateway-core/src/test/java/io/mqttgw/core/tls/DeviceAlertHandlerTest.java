package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

class DeviceAlertHandlerTest {
    /** A ClientHello-sized handshake record, a change_cipher_spec, then a plaintext fatal unknown_ca alert. */
    private static final byte[] FLIGHT = concat(record(22, 300), record(20, 1), new byte[] {21, 3, 3, 0, 2, 2, 48});

    private static byte[] record(int type, int length) {
        byte[] r = new byte[5 + length];
        r[0] = (byte) type;
        r[1] = 3;
        r[2] = 3;
        r[3] = (byte) (length >>> 8);
        r[4] = (byte) length;
        // a body that looks like an alert header must not be read as one
        for (int i = 5; i < r.length; i++) {
            r[i] = 21;
        }
        return r;
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    private static String fed(byte[] bytes, int chunk) {
        DeviceAlertHandler handler = new DeviceAlertHandler();
        EmbeddedChannel channel = new EmbeddedChannel(handler);
        for (int i = 0; i < bytes.length; i += chunk) {
            channel.writeInbound(Unpooled.wrappedBuffer(bytes, i, Math.min(chunk, bytes.length - i)));
        }
        int passed = 0;
        for (ByteBuf b; (b = channel.readInbound()) != null; ) {
            passed += b.readableBytes();
            b.release();
        }
        assertEquals(bytes.length, passed, "every byte passed on untouched");
        assertFalse(channel.finish());
        return handler.received();
    }

    @Test
    void namesThePlaintextAlertWhateverTheReadBoundaries() {
        for (int chunk : new int[] {1, 2, 3, 5, 7, 64, FLIGHT.length}) {
            assertEquals("unknown_ca", fed(FLIGHT, chunk), "reads of " + chunk + " bytes");
        }
    }

    @Test
    void ignoresCloseNotifyAndEncryptedRecords() {
        byte[] closeNotify = {21, 3, 3, 0, 2, 1, 0};
        assertNull(fed(concat(record(22, 40), record(23, 30), closeNotify), 4));
    }

    @Test
    void marksAWarningAlert() {
        assertEquals("user_canceled (warning)", fed(new byte[] {21, 3, 3, 0, 2, 1, 90}, 7));
    }

    @Test
    void stopsReadingAStreamThatIsNotTls() {
        byte[] mqtt = {0x10, 0x0c, 0, 4, 'M', 'Q', 'T', 'T', 4, 2, 0, 60, 21, 3, 3, 0, 2, 2, 48};
        assertNull(fed(mqtt, 3));
    }

    @Test
    void namesUnknownDescriptionsByNumber() {
        assertEquals("alert_200", DeviceAlertHandler.name(200));
        assertTrue(DeviceAlertHandler.name(116).equals("certificate_required"));
    }
}
