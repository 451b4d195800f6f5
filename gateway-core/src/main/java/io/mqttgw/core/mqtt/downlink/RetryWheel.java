package io.mqttgw.core.mqtt.downlink;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * A timer wheel per event loop for downlink retransmissions: a connection's window with messages in flight puts itself
 * in the wheel of its own loop, at most once, and is called back there when due. Entries are never cancelled: a
 * window whose messages were all acknowledged just finds nothing to do, which spares the cross-thread cancellations
 * that came too late in the field. The wheel ticks (one scheduled task on the loop) only while it holds entries.
 * Event loop only: each loop thread has its own wheel.
 */
// Kept hand-written: ticks on the connection's own loop, no cancels; a HashedWheelTimer has its own thread.
public final class RetryWheel {
    private static final long TICK_MILLIS = 100;
    private static final int SLOTS = 128;
    private static final FastThreadLocal<RetryWheel> WHEELS = new FastThreadLocal<>();

    private record Entry(InflightWindow window, long dueTick) {
    }

    @SuppressWarnings("unchecked")
    private final ArrayDeque<Entry>[] slots = new ArrayDeque[SLOTS];
    private final EventExecutor loop;
    private long tick;
    private int entries;
    private boolean ticking;

    private RetryWheel(EventExecutor loop) {
        this.loop = loop;
    }

    /**
     * The wheel of {@code loop}, which must be the calling thread's. A thread runs one event loop in production; a
     * test thread may run several embedded ones in turn, each getting a fresh wheel.
     */
    public static RetryWheel of(EventExecutor loop) {
        RetryWheel wheel = WHEELS.get();
        if (wheel == null || wheel.loop != loop) {
            wheel = new RetryWheel(loop);
            WHEELS.set(wheel);
        }
        return wheel;
    }

    void schedule(InflightWindow window, long delayMillis) {
        long ticks = Math.max(1, (delayMillis + TICK_MILLIS - 1) / TICK_MILLIS);
        long due = tick + ticks;
        int slot = (int) (due % SLOTS);
        if (slots[slot] == null) {
            slots[slot] = new ArrayDeque<>(4);
        }
        slots[slot].add(new Entry(window, due));
        entries++;
        if (!ticking) {
            ticking = true;
            loop.schedule(this::advance, TICK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    private void advance() {
        tick++;
        ArrayDeque<Entry> slot = slots[(int) (tick % SLOTS)];
        if (slot != null) {
            for (int n = slot.size(); n > 0; n--) {
                Entry e = slot.poll();
                if (e.dueTick() <= tick) {
                    entries--;
                    e.window().retryDue();
                } else {
                    // a later round of the wheel
                    slot.add(e);
                }
            }
        }
        if (entries > 0) {
            loop.schedule(this::advance, TICK_MILLIS, TimeUnit.MILLISECONDS);
        } else {
            ticking = false;
        }
    }
}
