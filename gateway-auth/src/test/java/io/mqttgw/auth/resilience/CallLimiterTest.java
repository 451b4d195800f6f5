package io.mqttgw.auth.resilience;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CallLimiterTest {
    private final AtomicLong now = new AtomicLong();
    private final List<String> events = new ArrayList<>();

    private CallLimiter.Call call(String name) {
        return new CallLimiter.Call() {
            @Override
            public void start() {
                events.add("start " + name);
            }

            @Override
            public void rejected(boolean expired) {
                events.add((expired ? "expired " : "rejected ") + name);
            }
        };
    }

    @Test
    void startsUpToTheCapThenQueuesThenRejects() {
        CallLimiter limiter = new CallLimiter(2, 1, 1000, now::get);
        limiter.submit(call("a"));
        limiter.submit(call("b"));
        limiter.submit(call("c"));
        limiter.submit(call("d"));
        assertEquals(List.of("start a", "start b", "rejected d"), events);
        assertEquals(2, limiter.inFlight());
        assertEquals(1, limiter.queued());
        limiter.release();
        assertEquals(List.of("start a", "start b", "rejected d", "start c"), events);
        assertEquals(2, limiter.inFlight());
        assertEquals(0, limiter.queued());
    }

    @Test
    void expiresACallThatWaitedTooLong() {
        CallLimiter limiter = new CallLimiter(1, 10, 1000, now::get);
        limiter.submit(call("a"));
        limiter.submit(call("b"));
        now.addAndGet(500);
        limiter.submit(call("c"));
        now.addAndGet(501);
        limiter.release();
        assertEquals(List.of("start a", "expired b", "start c"), events);
        assertEquals(1, limiter.inFlight());
    }

    @Test
    void neverExceedsTheCapAndLosesNoCallUnderContention() throws Exception {
        CallLimiter limiter = new CallLimiter(8, 100_000, Long.MAX_VALUE, System::nanoTime);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        ExecutorService completions = Executors.newFixedThreadPool(4);
        ExecutorService submitters = Executors.newFixedThreadPool(4);
        int total = 20_000;
        CountDownLatch finished = new CountDownLatch(total);
        try {
            for (int i = 0; i < total; i++) {
                submitters.execute(() -> limiter.submit(new CallLimiter.Call() {
                    @Override
                    public void start() {
                        peak.accumulateAndGet(running.incrementAndGet(), Math::max);
                        completions.execute(() -> {
                            running.decrementAndGet();
                            done.incrementAndGet();
                            finished.countDown();
                            limiter.release();
                        });
                    }

                    @Override
                    public void rejected(boolean expired) {
                        finished.countDown();
                    }
                }));
            }
            finished.await(30, TimeUnit.SECONDS);
        } finally {
            submitters.shutdownNow();
            completions.shutdownNow();
        }
        assertEquals(total, done.get(), "every call started and ended");
        assertEquals(0, limiter.queued());
        assertEquals(true, peak.get() <= 8, "peak " + peak.get());
    }
}
