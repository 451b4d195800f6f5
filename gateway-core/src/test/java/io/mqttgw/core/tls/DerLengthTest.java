package io.mqttgw.core.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class DerLengthTest {
    private static byte[] bytes(int... values) {
        byte[] out = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = (byte) values[i];
        }
        return out;
    }

    @Test
    void readsShortAndLongForms() {
        assertEquals(0x7f, DerLength.of(bytes(0x7f), 0));
        assertEquals(1, DerLength.size(bytes(0x7f), 0));
        assertEquals(0x80, DerLength.of(bytes(0x81, 0x80), 0));
        assertEquals(0x1234, DerLength.of(bytes(0x82, 0x12, 0x34), 0));
        assertEquals(3, DerLength.size(bytes(0x82, 0x12, 0x34), 0));
    }

    @Test
    void refusesWhatIsNotDer() {
        // indefinite, more than three octets, a leading zero octet, a long form for a short length, past the end
        for (byte[] notDer : new byte[][] {bytes(0x80), bytes(0x84, 1, 0, 0, 0), bytes(0x82, 0x00, 0x90),
                bytes(0x81, 0x7f), bytes(0x82, 0x01), bytes()}) {
            assertEquals(DerLength.NOT_DER, DerLength.of(notDer, 0));
        }
    }
}
