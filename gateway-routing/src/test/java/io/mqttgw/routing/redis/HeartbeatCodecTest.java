package io.mqttgw.routing.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledHeapByteBuf;
import org.junit.jupiter.api.Test;
import org.redisson.client.codec.StringCodec;

class HeartbeatCodecTest {
    /**
     * The heartbeat's arguments are plain heap buffers: not pooled, not direct, not wrapped for leak tracking, so one
     * that Redisson never releases costs nothing but garbage.
     */
    @Test
    void encodesTheHeartbeatsArgumentsIntoPlainHeapBuffersWithTheBytesStringCodecWrites() throws Exception {
        String value = "run-7f3a 42 é";
        ByteBuf heap = RouteBatches.HEAP_STRINGS.getValueEncoder().encode(value);
        ByteBuf usual = StringCodec.INSTANCE.getValueEncoder().encode(value);
        try {
            assertEquals(UnpooledHeapByteBuf.class, heap.getClass(), "no leak-aware or pooled wrapper");
            assertFalse(heap.isDirect());
            assertArrayEquals(ByteBufUtil.getBytes(usual), ByteBufUtil.getBytes(heap));
            assertEquals(value, RouteBatches.HEAP_STRINGS.getValueDecoder().decode(heap, null));
        } finally {
            usual.release();
            assertTrue(heap.release());
        }
    }
}
