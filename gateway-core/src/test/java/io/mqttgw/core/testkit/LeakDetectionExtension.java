package io.mqttgw.core.testkit;

import static org.junit.jupiter.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class when Netty reported a leaked buffer while it ran. Registered for every test by ServiceLoader
 * (autodetection is switched on by the build). After the class, it collects garbage and allocates a few tracked
 * buffers, which makes the detector poll its queue of collected-but-unreleased buffers.
 */
public final class LeakDetectionExtension implements AfterAllCallback {

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (ResourceLeakDetector.getLevel() != ResourceLeakDetector.Level.PARANOID) {
            return;
        }
        for (int round = 0; round < 3; round++) {
            System.gc();
            Thread.sleep(50);
            List<ByteBuf> probes = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                probes.add(PooledByteBufAllocator.DEFAULT.directBuffer(16));
                probes.add(PooledByteBufAllocator.DEFAULT.heapBuffer(16));
                probes.add(UnpooledByteBufAllocator.DEFAULT.buffer(16));
            }
            probes.forEach(ByteBuf::release);
        }
        if (!RecordingLeakDetector.LEAKS.isEmpty()) {
            List<String> leaks = List.copyOf(RecordingLeakDetector.LEAKS);
            RecordingLeakDetector.LEAKS.clear();
            fail("Netty reported " + leaks.size() + " leaked buffer(s) during or before "
                    + context.getDisplayName() + ":\n" + String.join("\n", leaks));
        }
    }
}
