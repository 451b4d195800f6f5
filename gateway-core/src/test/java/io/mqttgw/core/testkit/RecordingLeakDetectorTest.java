package io.mqttgw.core.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Test;

/** The build's leak check can fail: a buffer dropped without release is reported and recorded. */
class RecordingLeakDetectorTest {

    @Test
    void recordsABufferThatWasNeverReleased() throws InterruptedException {
        assertEquals(ResourceLeakDetector.Level.PARANOID, ResourceLeakDetector.getLevel(),
                "the build runs tests with -Dio.netty.leakDetection.level=paranoid");
        RecordingLeakDetector.LEAKS.clear();
        leakOne();
        long deadline = System.currentTimeMillis() + 5000;
        while (RecordingLeakDetector.LEAKS.isEmpty() && System.currentTimeMillis() < deadline) {
            System.gc();
            Thread.sleep(20);
            // allocation makes the detector poll its reference queue
            PooledByteBufAllocator.DEFAULT.directBuffer(8).release();
        }
        boolean recorded = !RecordingLeakDetector.LEAKS.isEmpty();
        // this leak was on purpose: clear it so the extension does not fail this class
        RecordingLeakDetector.LEAKS.clear();
        assertTrue(recorded, "the deliberate leak was recorded");
    }

    private static void leakOne() {
        ByteBuf leaked = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        leaked.writeLong(42);
    }
}
