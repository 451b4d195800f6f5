package io.mqttgw.core.mqtt.session;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DelayedWillsTest {
    private final EmbeddedChannel loop = new EmbeddedChannel();
    private final DelayedWills wills = new DelayedWills(2);
    private final AtomicInteger published = new AtomicInteger();

    @AfterEach
    void finish() {
        loop.finishAndReleaseAll();
    }

    private void after(int seconds) {
        loop.advanceTimeBy(seconds, TimeUnit.SECONDS);
        loop.runScheduledPendingTasks();
    }

    @Test
    void publishesOnceTheDelayHasPassed() {
        wills.schedule("a", loop.eventLoop(), 5, published::incrementAndGet);
        after(4);
        assertEquals(0, published.get());
        after(1);
        assertEquals(1, published.get());
        assertEquals(0, wills.size());
    }

    @Test
    void aResumedSessionCancelsItsWill() {
        wills.schedule("a", loop.eventLoop(), 5, published::incrementAndGet);
        wills.cancel("a");
        after(5);
        assertEquals(0, published.get());
    }

    @Test
    void aCleanStartPublishesNow() {
        wills.schedule("a", loop.eventLoop(), 5, published::incrementAndGet);
        wills.publishNow("a");
        assertEquals(1, published.get());
        after(5);
        assertEquals(1, published.get(), "once");
    }

    @Test
    void pastTheBoundAWillIsPublishedAtOnceAndCounted() {
        wills.schedule("a", loop.eventLoop(), 5, published::incrementAndGet);
        wills.schedule("b", loop.eventLoop(), 5, published::incrementAndGet);
        wills.schedule("c", loop.eventLoop(), 5, published::incrementAndGet);
        assertEquals(1, published.get());
        assertEquals(1, wills.overflowCount());
        assertEquals(2, wills.size());
    }

    @Test
    void aWillScheduledAfterTheNodeBeganShuttingDownIsPublishedAtOnce() {
        wills.publishAll();
        wills.schedule("late", loop.eventLoop(), 5, published::incrementAndGet);
        assertEquals(1, published.get(), "no loop will be there to publish it after its delay");
        assertEquals(0, wills.size());
    }
}
