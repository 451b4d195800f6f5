package io.mqttgw.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class OpenFileCountTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final AtomicLong counts = new AtomicLong();
    private final AtomicLong open = new AtomicLong(18_000);
    private final OpenFileCount count = new OpenFileCount(() -> {
        counts.incrementAndGet();
        return open.get();
    }, now::get, Duration.ofSeconds(30));

    @Test
    void countsOnceAndAnswersFromThatCountWithinTheRefreshInterval() {
        assertEquals(18_000, count.value());
        open.set(19_000);
        now.addAndGet(Duration.ofSeconds(29).toNanos());
        assertEquals(18_000, count.value(), "a scrape inside the interval does not list the descriptors again");
        assertEquals(18_000, count.value());
        assertEquals(1, counts.get());
    }

    @Test
    void countsAgainOnceTheIntervalHasPassed() {
        count.value();
        open.set(19_000);
        now.addAndGet(Duration.ofSeconds(30).toNanos());
        assertEquals(19_000, count.value());
        assertEquals(2, counts.get());
    }

    @Test
    void passesOnAPlatformThatCannotCount() {
        open.set(-1);
        assertEquals(-1, count.value());
    }
}
