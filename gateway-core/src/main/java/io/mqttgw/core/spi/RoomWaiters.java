package io.mqttgw.core.spi;

/**
 * The connections waiting for room in a sink's bound, for a sink to embed: FIFO, one entry per {@link RoomWait} at
 * most (so bounded by the connections that wait), O(1) to add, cancel and wake. Wake-ups have hysteresis: nobody is
 * woken until the sink's charge falls under its low mark, and then only about as many as the free room takes
 * (bound - charge - what earlier wake-ups already promised), so a sink that frees its first bytes does not wake its
 * whole queue at once to be refused again. A woken waiter refused again goes back to the front; one that sent again
 * or left says so ({@link #done}), which returns the room promised to it. The sink calls {@link #released} after it
 * lowers its charge; that costs one volatile read while nobody waits. A short lock guards the list (never held while
 * calling a waiter). Any thread.
 */
public final class RoomWaiters {
    private final long bound;
    private final long lowMark;
    private final Object lock = new Object();
    private RoomWait head;
    private RoomWait tail;
    private long promised;
    private volatile int waiting;

    /**
     * @param bound   the sink's bound, in the unit of its charge
     * @param lowMark charge under which waiters are woken
     */
    public RoomWaiters(long bound, long lowMark) {
        this.bound = bound;
        this.lowMark = lowMark;
    }

    /**
     * Queues {@code wait} for room for a message of {@code cost}: at the back, or at the front when it was woken and
     * refused again. Already queued: nothing changes. Then wakes at once if the charge fell meanwhile, so a release
     * between the refusal and this call is not missed.
     */
    public void add(RoomWait wait, long cost, long charge) {
        synchronized (lock) {
            if (!wait.queued) {
                boolean again = wait.woken;
                if (again) {
                    wait.woken = false;
                    promised -= wait.cost;
                }
                wait.cost = cost;
                wait.queued = true;
                if (again) {
                    linkFirst(wait);
                } else {
                    linkLast(wait);
                }
                waiting++;
            }
        }
        released(charge);
    }

    /** {@code wait} sent its message again, or its connection closed: out of the queue, its promise returned. */
    public void done(RoomWait wait) {
        synchronized (lock) {
            if (wait.queued) {
                unlink(wait);
                wait.queued = false;
                waiting--;
            }
            if (wait.woken) {
                wait.woken = false;
                promised -= wait.cost;
            }
        }
    }

    /** Connections waiting (not yet woken). */
    public int waiting() {
        return waiting;
    }

    /** The sink's charge is now {@code charge}: wakes the first waiters the room takes, if it is under the low mark. */
    public void released(long charge) {
        if (waiting == 0 || charge >= lowMark) {
            return;
        }
        RoomWait first = null;
        RoomWait last = null;
        synchronized (lock) {
            long room = bound - charge - promised;
            // the head always goes when nothing is promised, so a message larger than the room is not stuck forever
            while (head != null && (room >= head.cost || promised == 0)) {
                RoomWait w = head;
                unlink(w);
                w.queued = false;
                w.woken = true;
                waiting--;
                promised += w.cost;
                room -= w.cost;
                // reuse the links as a private list of those to call once the lock is released
                if (first == null) {
                    first = w;
                } else {
                    last.next = w;
                }
                last = w;
            }
        }
        for (RoomWait w = first; w != null; ) {
            RoomWait next = w.next;
            w.next = null;
            w.room();
            w = next;
        }
    }

    /** The sink closed: every waiter is told, to send again and be refused as closed (which ends its wait). */
    public void wakeAll() {
        RoomWait first;
        synchronized (lock) {
            first = head;
            for (RoomWait w = head; w != null; w = w.next) {
                w.queued = false;
                w.woken = true;
                promised += w.cost;
            }
            head = null;
            tail = null;
            waiting = 0;
        }
        for (RoomWait w = first; w != null; ) {
            RoomWait next = w.next;
            w.prev = null;
            w.next = null;
            w.room();
            w = next;
        }
    }

    private void linkLast(RoomWait w) {
        w.prev = tail;
        w.next = null;
        if (tail == null) {
            head = w;
        } else {
            tail.next = w;
        }
        tail = w;
    }

    private void linkFirst(RoomWait w) {
        w.prev = null;
        w.next = head;
        if (head == null) {
            tail = w;
        } else {
            head.prev = w;
        }
        head = w;
    }

    private void unlink(RoomWait w) {
        if (w.prev == null) {
            head = w.next;
        } else {
            w.prev.next = w.next;
        }
        if (w.next == null) {
            tail = w.prev;
        } else {
            w.next.prev = w.prev;
        }
        w.prev = null;
        w.next = null;
    }
}
