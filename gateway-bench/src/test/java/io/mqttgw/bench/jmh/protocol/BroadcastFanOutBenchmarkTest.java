package io.mqttgw.bench.jmh.protocol;

import io.mqttgw.core.mqtt.downlink.DownlinkPublish;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The two ways {@link BroadcastFanOutBenchmark} compares write byte-identical packets, so it compares like with
 * like, and a device decodes them as the broadcast with its own packet id.
 */
class BroadcastFanOutBenchmarkTest {
    private static final int[] PACKET_IDS = {1, 2, 127, 128, 255, 256, 32_767, 32_768, 65_534, 65_535};

    private static BroadcastFanOutBenchmark bench(String allocator, int receivers) {
        BroadcastFanOutBenchmark bench = new BroadcastFanOutBenchmark();
        bench.receivers = receivers;
        bench.payload = 500;
        bench.allocator = allocator;
        bench.setUp(true);
        return bench;
    }

    /** The benchmark methods themselves: one broadcast each way to 1,000 receivers (packet ids 1 to 1,000). */
    @ParameterizedTest
    @ValueSource(strings = {"pooled", "unpooled-heap"})
    void bothBenchmarkMethodsWriteTheSameBytesForEveryReceiver(String allocator) {
        BroadcastFanOutBenchmark shared = bench(allocator, 1000);
        BroadcastFanOutBenchmark perReceiver = bench(allocator, 1000);
        try {
            assertEquals(1000, shared.sharedEncoding());
            assertEquals(1000, perReceiver.perReceiverEncoding());
            List<byte[]> a = shared.sink().captured;
            List<byte[]> b = perReceiver.sink().captured;
            assertEquals(1000, a.size());
            assertEquals(1000, b.size());
            for (int r = 0; r < a.size(); r++) {
                assertArrayEquals(b.get(r), a.get(r), "receiver " + r);
            }
            // 1 + 2 (remaining length 522) + 2 + 18 (topic) + 2 (packet id) + 500 (payload)
            assertEquals(525, a.get(0).length);
            assertEquals(525L * 1000, shared.sink().bytes);
        } finally {
            shared.tearDown();
            perReceiver.tearDown();
        }
    }

    /** The comparison-only way writes header and payload apart; joined, they are the same bytes again. */
    @ParameterizedTest
    @ValueSource(strings = {"pooled", "unpooled-heap"})
    void theHeaderCopyWayWritesTheSameBytesInTwoWrites(String allocator) {
        BroadcastFanOutBenchmark shared = bench(allocator, 1000);
        BroadcastFanOutBenchmark split = bench(allocator, 1000);
        try {
            shared.sharedEncoding();
            assertEquals(2000, split.headerCopyAndSharedPayload());
            List<byte[]> a = shared.sink().captured;
            List<byte[]> b = split.sink().captured;
            for (int r = 0; r < a.size(); r++) {
                byte[] header = b.get(2 * r);
                byte[] body = b.get(2 * r + 1);
                byte[] joined = java.util.Arrays.copyOf(header, header.length + body.length);
                System.arraycopy(body, 0, joined, header.length, body.length);
                assertArrayEquals(a.get(r), joined, "receiver " + r);
            }
        } finally {
            shared.tearDown();
            split.tearDown();
        }
    }

    /** Packet ids across the whole range, byte boundaries included, and what the device decodes. */
    @ParameterizedTest
    @ValueSource(strings = {"pooled", "unpooled-heap"})
    void everyPacketIdIsWrittenIdenticallyAndDecodes(String allocator) {
        BroadcastFanOutBenchmark b = bench(allocator, 0);
        try {
            DownlinkPublish shared = DownlinkPublish.encode(b.message(), b.alloc());
            ByteBuf body = b.alloc().buffer(500).writeBytes(b.message().payload());
            MqttFixedHeader fixed = new MqttFixedHeader(MqttMessageType.PUBLISH, false, MqttQoS.AT_LEAST_ONCE, false,
                    0);
            for (int id : PACKET_IDS) {
                b.sendShared(shared, id);
                b.sendPerReceiver(fixed, body, id);
            }
            body.release();
            shared.release();
            assertEquals(0, shared.refCnt(), "every send gave its reference back");
            List<byte[]> out = b.sink().captured;
            assertEquals(2 * PACKET_IDS.length, out.size());
            for (int i = 0; i < PACKET_IDS.length; i++) {
                assertArrayEquals(out.get(2 * i + 1), out.get(2 * i), "packet id " + PACKET_IDS[i]);
                decodes(out.get(2 * i), PACKET_IDS[i]);
            }
        } finally {
            b.tearDown();
        }
    }

    @Test
    void packetIdsWrapAfter65535AsASessionsCounterDoes() {
        assertEquals(1, BroadcastFanOutBenchmark.packetId(0));
        assertEquals(65_535, BroadcastFanOutBenchmark.packetId(65_534));
        assertEquals(1, BroadcastFanOutBenchmark.packetId(65_535));
        assertEquals(34_465, BroadcastFanOutBenchmark.packetId(99_999));
    }

    private static void decodes(byte[] packet, int packetId) {
        EmbeddedChannel decoder = new EmbeddedChannel(new MqttDecoder());
        try {
            decoder.writeInbound(Unpooled.wrappedBuffer(packet));
            MqttPublishMessage publish = decoder.readInbound();
            try {
                assertEquals(BroadcastFanOutBenchmark.TOPIC, publish.variableHeader().topicName());
                assertEquals(MqttQoS.AT_LEAST_ONCE, publish.fixedHeader().qosLevel());
                assertEquals(packetId, publish.variableHeader().packetId());
                ByteBuf body = publish.payload();
                assertEquals(500, body.readableBytes());
                assertEquals("abcdefghij", body.toString(0, 10, StandardCharsets.US_ASCII));
            } finally {
                publish.release();
            }
        } finally {
            decoder.finishAndReleaseAll();
        }
    }
}
