package io.mqttgw.core.metrics;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.DefaultEventLoopGroup;
import org.junit.jupiter.api.Test;

class NodeMetersTest {

    /** Micrometer holds a gauge's object weakly by default; the open-file count has no other owner. */
    @Test
    void keepsCountingOpenFilesAfterAGarbageCollection() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        DefaultEventLoopGroup loops = new DefaultEventLoopGroup(1);
        try (NodeMeters meters = new NodeMeters(registry, PooledByteBufAllocator.DEFAULT, loops)) {
            for (int i = 0; i < 3; i++) {
                System.gc();
                Thread.sleep(50);
            }
            double open = registry.get("process.files.open").gauge().value();
            assertFalse(Double.isNaN(open), "the gauge still has its count after a GC");
            assertTrue(open > 0, "open files: " + open);
            assertTrue(registry.get("process.files.max").gauge().value() > 0);
        } finally {
            loops.shutdownGracefully().sync();
        }
    }
}
