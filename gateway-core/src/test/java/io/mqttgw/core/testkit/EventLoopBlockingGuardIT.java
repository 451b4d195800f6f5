package io.mqttgw.core.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mqttgw.core.eventloop.ClosingIoEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The guard itself: a blocking call on an event loop of the kind the device listeners run on is recorded, so every
 * integration test fails on one. The recorder is drained here, so the guard's own check after this test finds
 * nothing left.
 */
class EventLoopBlockingGuardIT {
    @Test
    void recordsASleepOnADeviceEventLoop() throws Exception {
        assertTrue(Boolean.getBoolean("mqttgw.test.blocking-guard"), "the build runs the integration tests guarded");
        EventLoopBlockingRecorder.drain();
        EventLoopGroup loops = new ClosingIoEventLoopGroup(1, new DefaultThreadFactory("mqtt-io", true),
                NioIoHandler.newFactory());
        try {
            loops.submit(() -> {
                Thread.sleep(1);
                return null;
            }).get(30, TimeUnit.SECONDS);
        } finally {
            loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        }
        EventLoopBlockingRecorder.Drained calls = EventLoopBlockingRecorder.drain();
        assertEquals(1, calls.count(), () -> String.join("\n", calls.traces()));
        assertTrue(calls.traces().get(0).contains("sleep"), calls.traces().get(0));
    }
}
