package io.mqttgw.core.testkit;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The bytes of an MQTT packet as a device writes them, built field by field so a test (or a benchmark) can also write
 * what no well-behaved client would: any value in any field, lengths that do not add up. Not thread-safe; one per
 * packet.
 */
public final class MqttBytes {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    /**
     * A clean-session CONNECT of MQTT 3.1.1 ({@code v5} false) or 5.0 (with an empty property block) from
     * {@code clientId}, keepalive 60 s, no credentials.
     */
    public static byte[] connect(boolean v5, String clientId) {
        MqttBytes b = new MqttBytes().string("MQTT").u8(v5 ? 5 : 4).u8(0x02).u16(60);
        if (v5) {
            b.u8(0);
        }
        return b.string(clientId).packet(0x10);
    }

    public MqttBytes u8(int v) {
        out.write(v);
        return this;
    }

    public MqttBytes u16(int v) {
        out.write(v >> 8);
        out.write(v);
        return this;
    }

    public MqttBytes u32(int v) {
        return u16(v >>> 16).u16(v & 0xFFFF);
    }

    /** A UTF-8 string with its two-byte length. */
    public MqttBytes string(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        u16(b.length);
        out.writeBytes(b);
        return this;
    }

    public MqttBytes raw(int... bytes) {
        for (int b : bytes) {
            out.write(b);
        }
        return this;
    }

    public MqttBytes raw(byte[] bytes) {
        out.writeBytes(bytes);
        return this;
    }

    /** What was written so far, as a body or a property block. */
    public byte[] bytes() {
        return out.toByteArray();
    }

    /** The whole packet: {@code first} (type and flags), the remaining length as a variable byte integer, the body. */
    public byte[] packet(int first) {
        byte[] body = bytes();
        ByteArrayOutputStream p = new ByteArrayOutputStream();
        p.write(first);
        int n = body.length;
        do {
            int digit = n & 0x7F;
            n >>>= 7;
            p.write(n > 0 ? digit | 0x80 : digit);
        } while (n > 0);
        p.writeBytes(body);
        return p.toByteArray();
    }
}
