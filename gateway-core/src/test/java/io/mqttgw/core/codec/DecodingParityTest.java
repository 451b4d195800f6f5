package io.mqttgw.core.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.ProtocolCapabilities;
import io.mqttgw.core.testkit.MqttBytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttConnectPayload;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.util.ReferenceCountUtil;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The one-pass decoder against the two-pass path it replaced (rules, then Netty's decoder driven packet by packet):
 * valid packets of every type a device sends in 3.1, 3.1.1 and 5.0, and tens of thousands of mutations of them, give
 * the same messages and the same refusals (counted reason, what the device is written) as that path gave when both
 * ran side by side; their digest was recorded then.
 */
class DecodingParityTest {
    private static final int CLIENT_ID = 23;

    /** One connection's input: the CONNECT before (or nothing), the packet, the size limit, the protocol. */
    record Case(byte[] before, byte[] packet, int max, boolean v5) {
        byte[] stream() {
            byte[] stream = new byte[before.length + packet.length];
            System.arraycopy(before, 0, stream, 0, before.length);
            System.arraycopy(packet, 0, stream, before.length, packet.length);
            return stream;
        }
    }

    /** The corpus: always the same cases in the same order (the outcomes' digest is recorded). */
    static List<Case> cases() {
        List<byte[]> v4 = ParityCorpus.packets(false);
        List<byte[]> v5 = ParityCorpus.packets(true);
        Random random = new Random(20261128);
        List<Case> all = new ArrayList<>();
        for (int max : new int[] {256 * 1024, 48, 64, 100}) {
            add(all, ParityCorpus.connect(false), v4, max, random, false);
            add(all, ParityCorpus.connect(true), v5, max, random, true);
            add(all, ParityCorpus.connect31(), v4, max, random, false);
            for (byte[] connect : ParityCorpus.connects()) {
                add(all, new byte[0], List.of(connect), max, random, false);
            }
        }
        return all;
    }

    private static void add(List<Case> all, byte[] before, List<byte[]> packets, int max, Random random,
            boolean v5) {
        for (byte[] packet : packets) {
            for (byte[] mutant : ParityCorpus.mutants(packet, random)) {
                all.add(new Case(before, mutant, max, v5));
            }
        }
    }

    /**
     * The outcomes as recorded from the two-pass path (SHA-256 by chunk of 1,000 cases, in
     * {@code two-pass-outcomes.txt}): the same check once that path is gone. A deliberate change of what a packet
     * decodes to is recorded anew with {@code -Dcodec.parity.record=<file>}.
     */
    @Test
    void decodesAndRefusesAsRecordedFromTheTwoPassPath() throws Exception {
        List<Case> cases = cases();
        List<String> actual = new ArrayList<>();
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            sha.update((c.max() + " " + ByteBufUtil.hexDump(c.stream()) + "\n").getBytes(StandardCharsets.UTF_8));
            sha.update(onePass(c.before(), c.packet(), c.max(), c.v5()).getBytes(StandardCharsets.UTF_8));
            if (i % 1000 == 999 || i == cases.size() - 1) {
                actual.add(ByteBufUtil.hexDump(sha.digest()));
            }
        }
        String record = System.getProperty("codec.parity.record");
        if (record != null) {
            Files.write(Path.of(record), actual, StandardCharsets.UTF_8);
        }
        List<String> expected;
        try (InputStream in = DecodingParityTest.class.getResourceAsStream("two-pass-outcomes.txt")) {
            expected = List.of(new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n"));
        }
        assertEquals(expected.size(), actual.size(), "cases");
        for (int i = 0; i < actual.size(); i++) {
            assertEquals(expected.get(i), actual.get(i), "outcomes of cases " + i * 1000 + " to " + (i * 1000 + 999));
        }
    }

    private static EmbeddedChannel channel(boolean v5) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ConnectionContext c = new ConnectionContext("tcp");
        if (v5) {
            c.capabilities(ProtocolCapabilities.MQTT_5);
        }
        ch.attr(ConnectionContext.KEY).set(c);
        return ch;
    }

    /** The connection's bytes through the decoder handler as the pipeline has it, then the refusals' handler. */
    static String onePass(byte[] connect, byte[] packet, int max, boolean v5) {
        EmbeddedChannel ch = channel(v5);
        ch.pipeline().addLast(new MqttPacketDecoder(max, CLIENT_ID), InvalidPacketHandler.INSTANCE);
        ch.writeInbound(Unpooled.wrappedBuffer(new Case(connect, packet, max, v5).stream()));
        return outcome(ch);
    }

    private static String outcome(EmbeddedChannel ch) {
        StringBuilder s = new StringBuilder();
        for (Object m; (m = ch.readInbound()) != null; ) {
            s.append(describe((MqttMessage) m)).append('\n');
            ReferenceCountUtil.release(m);
        }
        s.append("closed: ").append(!ch.isOpen()).append(", reason ")
                .append(ConnectionContext.of(ch).closeReason()).append('\n');
        for (Object out; (out = ch.readOutbound()) != null; ) {
            s.append("written: ").append(out instanceof ByteBuf b ? ByteBufUtil.hexDump(b)
                    : out instanceof MqttMessage m ? describe(m) : out.toString())
                    .append('\n');
            ReferenceCountUtil.release(out);
        }
        ch.finishAndReleaseAll();
        return s.toString();
    }

    static String describe(MqttMessage m) {
        StringBuilder s = new StringBuilder(m.getClass().getSimpleName()).append(' ').append(m.fixedHeader());
        Object vh = m.variableHeader();
        s.append(" | ").append(vh == null ? "-" : strip(vh.toString()));
        if (vh != null) {
            for (String method : new String[] {"properties"}) {
                try {
                    Object p = vh.getClass().getMethod(method).invoke(vh);
                    s.append(" props ").append(props((MqttProperties) p));
                } catch (ReflectiveOperationException e) {
                    // a header without properties
                }
            }
        }
        Object payload = m.payload();
        s.append(" | ");
        if (payload instanceof ByteBuf b) {
            s.append(ByteBufUtil.hexDump(b));
        } else if (payload instanceof MqttConnectPayload c) {
            s.append(c.clientIdentifier()).append(", will ").append(c.willTopic()).append(' ')
                    .append(hex(c.willMessageInBytes())).append(' ').append(props(c.willProperties()))
                    .append(", user ").append(c.userName()).append(", password ").append(hex(c.passwordInBytes()));
        } else {
            s.append(payload);
        }
        return s.toString();
    }

    private static String hex(byte[] b) {
        return b == null ? "null" : ByteBufUtil.hexDump(b);
    }

    private static String strip(String s) {
        return s.replaceAll("MqttProperties@[0-9a-f]+", "props");
    }

    private static String props(MqttProperties p) {
        List<String> all = new ArrayList<>();
        for (MqttProperties.MqttProperty<?> property : p.listAll()) {
            Object value = property.value();
            String v;
            if (value instanceof byte[] b) {
                v = ByteBufUtil.hexDump(b);
            } else if (property instanceof MqttProperties.UserProperty u) {
                v = u.value().key + "=" + u.value().value;
            } else if (value instanceof List<?> pairs) {
                StringBuilder b = new StringBuilder();
                for (Object o : pairs) {
                    MqttProperties.StringPair pair = (MqttProperties.StringPair) o;
                    b.append(pair.key).append('=').append(pair.value).append(';');
                }
                v = b.toString();
            } else {
                v = String.valueOf(value);
            }
            all.add(property.propertyId() + ":" + v);
        }
        all.sort(null);
        return all.toString();
    }

    /** Valid packets and their mutations. */
    static final class ParityCorpus {
        private ParityCorpus() {
        }

        static byte[] connect(boolean v5) {
            return MqttBytes.connect(v5, "dev-1");
        }

        static byte[] connect31() {
            return new MqttBytes().string("MQIsdp").u8(3).u8(0x02).u16(60).string("dev-1").packet(0x10);
        }

        static List<byte[]> connects() {
            List<byte[]> all = new ArrayList<>();
            all.add(connect(false));
            all.add(connect(true));
            all.add(connect31());
            all.add(new MqttBytes().string("MQIsdp").u8(3).u8(0x02).u16(60).string("a-client-id-of-24-chars!")
                    .packet(0x10));
            all.add(new MqttBytes().string("MQIsdp").u8(3).u8(0x02).u16(60).string("").packet(0x10));
            all.add(new MqttBytes().string("MQTT").u8(6).u8(0x02).u16(60).string("dev").packet(0x10));
            all.add(new MqttBytes().string("MQTX").u8(4).u8(0x02).u16(60).string("dev").packet(0x10));
            // will, user name and password
            all.add(new MqttBytes().string("MQTT").u8(4).u8(0xEE).u16(30).string("dev-ü")
                    .string("will/t").string("bye").string("user").string("secret").packet(0x10));
            all.add(new MqttBytes().string("MQTT").u8(5).u8(0xCE).u16(30)
                    .raw(0x0D, 0x11, 0, 0, 0, 60, 0x21, 0, 10, 0x26, 0, 1, 'k', 0, 1, 'v')
                    .string("dev-5").raw(0x07, 0x18, 0, 0, 0, 5, 0x01, 1).string("will/5").string("gone")
                    .string("user").string("pw").packet(0x10));
            all.add(new MqttBytes().string("MQTT").u8(5).u8(0x42).u16(30).raw(0).string("").string("pw").packet(0x10));
            return all;
        }

        static List<byte[]> packets(boolean v5) {
            List<byte[]> all = new ArrayList<>();
            byte[] payload = new byte[20];
            MqttBytes props = v5 ? new MqttBytes().raw(0) : new MqttBytes();
            all.add(new MqttBytes().string("a/b").raw(props.bytes()).raw(payload).packet(0x30));
            all.add(new MqttBytes().string("dev/1/up").u16(7).raw(props.bytes()).raw(payload).packet(0x32));
            all.add(new MqttBytes().string("d/ü/€").u16(9).raw(props.bytes()).raw(new byte[] {1, 2}).packet(0x3D));
            if (v5) {
                all.add(new MqttBytes().string("t/x").u16(3)
                        .raw(0x1A, 0x01, 1, 0x02, 0, 0, 0, 9, 0x03, 0, 2, 'a', 'b', 0x23, 0, 4, 0x08, 0, 1, 'r',
                                0x09, 0, 2, 5, 6, 0x26, 0, 1, 'k', 0, 2, 'v', 'w')
                        .raw(payload).packet(0x32));
                all.add(new MqttBytes().string("").raw(3, 0x23, 0, 4).raw(payload).packet(0x30));
                all.add(new MqttBytes().u16(5).u8(0x10).raw(4, 0x1F, 0, 1, 'x').packet(0x40));
                all.add(new MqttBytes().u16(5).u8(0x92).packet(0x62));
                all.add(new MqttBytes().u16(5).u8(0).raw(0).packet(0x50));
                all.add(new MqttBytes().u8(0x04).raw(5, 0x11, 0, 0, 0, 0).packet(0xE0));
                all.add(new MqttBytes().u8(0x8E).packet(0xE0));
                all.add(new MqttBytes().u8(0x18).raw(4, 0x15, 0, 1, 'm').packet(0xF0));
                all.add(new MqttBytes().packet(0xF0));
                all.add(new MqttBytes().u16(8).raw(2, 0x0B, 7).string("s/+").u8(0x2E).string("t/#").u8(0x01)
                        .packet(0x82));
                all.add(new MqttBytes().u16(8).raw(3, 0x26, 0, 0).string("s/+").packet(0xA2));
            } else {
                all.add(new MqttBytes().u16(8).string("s/+").u8(1).string("t/#").u8(0).packet(0x82));
                all.add(new MqttBytes().u16(8).string("s/+").string("t").packet(0xA2));
                all.add(new MqttBytes().u8(1).u8(0).packet(0x20));
                all.add(new MqttBytes().u16(8).u8(0).u8(0x80).packet(0x90));
                all.add(new MqttBytes().u16(8).packet(0xB0));
                all.add(new MqttBytes().packet(0xD0));
            }
            all.add(new MqttBytes().u16(5).packet(0x40));
            all.add(new MqttBytes().u16(5).packet(0x50));
            all.add(new MqttBytes().u16(5).packet(0x62));
            all.add(new MqttBytes().u16(5).packet(0x70));
            all.add(new MqttBytes().packet(0xC0));
            all.add(new MqttBytes().packet(0xE0));
            return all;
        }

        /** The packet, then mutations of its flags and body with the remaining length fitted to the new body. */
        static List<byte[]> mutants(byte[] packet, Random random) {
            int header = 2;
            while ((packet[header - 1] & 0x80) != 0) {
                header++;
            }
            byte[] body = new byte[packet.length - header];
            System.arraycopy(packet, header, body, 0, body.length);
            int first = packet[0] & 0xFF;
            List<byte[]> all = new ArrayList<>();
            all.add(packet);
            for (int flags = 0; flags < 16; flags++) {
                all.add(frame((first & 0xF0) | flags, body));
            }
            int[] values = {0x00, 0xFF, 0x80, 0x7F, 0x01, 0x02, 0x23, 0x2B, '+', '#', 0xC0, 0xED, 0xE2, 0x26};
            for (int i = 0; i < body.length; i++) {
                for (int v : values) {
                    byte[] b = body.clone();
                    b[i] = (byte) v;
                    all.add(frame(first, b));
                }
                byte[] plus = body.clone();
                plus[i]++;
                all.add(frame(first, plus));
                byte[] minus = body.clone();
                minus[i]--;
                all.add(frame(first, minus));
            }
            for (int cut = 0; cut < body.length; cut++) {
                byte[] b = new byte[cut];
                System.arraycopy(body, 0, b, 0, cut);
                all.add(frame(first, b));
            }
            for (int extra : new int[] {0, 1, 0xFF}) {
                byte[] b = new byte[body.length + 1];
                System.arraycopy(body, 0, b, 0, body.length);
                b[body.length] = (byte) extra;
                all.add(frame(first, b));
            }
            for (int n = 0; n < 40 && body.length > 0; n++) {
                byte[] b = body.clone();
                for (int k = 0; k < 3; k++) {
                    b[random.nextInt(b.length)] = (byte) random.nextInt(256);
                }
                all.add(frame(first, b));
            }
            // invalid UTF-8 and U+0000 in every string position that starts a field
            for (int i = 0; i + 3 < body.length; i++) {
                for (byte[] bad : new byte[][] {{(byte) 0xC0, (byte) 0x80}, {(byte) 0xED, (byte) 0xA0}, {0, 0}}) {
                    byte[] b = body.clone();
                    b[i] = bad[0];
                    b[i + 1] = bad[1];
                    all.add(frame(first, b));
                }
            }
            // padding so the packet crosses the size limits of the test in different fields
            for (int pad : new int[] {20, 30, 40, 50, 60, 90}) {
                all.add(frame(first, body, pad));
            }
            return all;
        }

        private static byte[] frame(int first, byte[] body) {
            return new MqttBytes().raw(body).packet(first);
        }

        /** The body with its first string field (if any) lengthened by {@code pad} bytes. */
        private static byte[] frame(int first, byte[] body, int pad) {
            if (body.length < 2) {
                return frame(first, body);
            }
            int length = ((body[0] & 0xFF) << 8 | (body[1] & 0xFF));
            if (length + 2 > body.length) {
                return frame(first, body);
            }
            byte[] b = new byte[body.length + pad];
            b[0] = (byte) ((length + pad) >> 8);
            b[1] = (byte) (length + pad);
            System.arraycopy(body, 2, b, 2, length);
            for (int i = 0; i < pad; i++) {
                b[2 + length + i] = (byte) 'p';
            }
            System.arraycopy(body, 2 + length, b, 2 + length + pad, body.length - 2 - length);
            return frame(first, b);
        }
    }
}
