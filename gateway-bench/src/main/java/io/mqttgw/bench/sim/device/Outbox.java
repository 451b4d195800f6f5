package io.mqttgw.bench.sim.device;

/**
 * A device's QoS 1 PUBLISHes not yet acknowledged, kept so that a device with a persistent session resends them
 * after it reconnects, as MQTT requires (same packet id, DUP set), and so that the bench can tell a message whose
 * PUBACK came late from one that never came. Each entry is one long (packet id, topic kind, payload size, resent
 * flag, first-send time in seconds); the array is allocated on the first QoS 1 PUBLISH and grows up to
 * {@link #CAPACITY}, the device's in-flight window. A numbered payload's message number is kept beside it (the
 * resend must carry the same number). Confined to the device's event loop.
 */
final class Outbox {
    /** A device keeps no more unacknowledged QoS 1 PUBLISHes than this, as a client's in-flight window does. */
    static final int CAPACITY = 32;

    /** What {@link #ack} found for a packet id. */
    enum Ack { UNKNOWN, FIRST_SEND, AFTER_RESEND }

    private static final int ID_BITS = 16;
    private static final int KIND_SHIFT = ID_BITS;
    private static final int KIND_BITS = 4;
    private static final int BYTES_SHIFT = KIND_SHIFT + KIND_BITS;
    private static final int BYTES_BITS = 21;
    private static final int RESENT_SHIFT = BYTES_SHIFT + BYTES_BITS;
    private static final int SECONDS_SHIFT = RESENT_SHIFT + 1;
    /** Per entry, the first send in whole seconds of {@code System.nanoTime()}, wrapping every ~2^22 s (48 days). */
    private static final long SECONDS_MASK = (1L << (64 - SECONDS_SHIFT)) - 1;
    static final int MAX_BYTES = (1 << BYTES_BITS) - 1;

    private long[] entries;
    /** Message numbers of the entries, allocated with the first numbered PUBLISH; null while none was numbered. */
    private int[] sequences;
    private int size;

    /**
     * Keeps a PUBLISH just sent for the first time. False when the window is full: the caller then does not send.
     *
     * @param kind which topic the PUBLISH went to (the caller's numbering, 0 to 15)
     */
    boolean add(int packetId, int kind, int bytes, long nowNanos) {
        return add(packetId, kind, bytes, nowNanos, 0);
    }

    /** As {@link #add(int, int, int, long)}, keeping the payload's message number ({@code sequence} above 0). */
    boolean add(int packetId, int kind, int bytes, long nowNanos, int sequence) {
        if (size == CAPACITY) {
            return false;
        }
        if (entries == null) {
            entries = new long[4];
        } else if (size == entries.length) {
            entries = java.util.Arrays.copyOf(entries, Math.min(CAPACITY, size * 2));
        }
        if (sequences != null ? sequences.length < entries.length : sequence > 0) {
            sequences = sequences == null ? new int[entries.length]
                    : java.util.Arrays.copyOf(sequences, entries.length);
        }
        if (sequences != null) {
            sequences[size] = sequence;
        }
        entries[size++] = (packetId & 0xFFFFL) | ((long) (kind & 0xF) << KIND_SHIFT)
                | ((long) Math.min(bytes, MAX_BYTES) << BYTES_SHIFT)
                | ((seconds(nowNanos) & SECONDS_MASK) << SECONDS_SHIFT);
        return true;
    }

    /** Removes the entry of a PUBACK's packet id, keeping the order of the others (they are resent in order). */
    Ack ack(int packetId) {
        for (int i = 0; i < size; i++) {
            if (packetId(i) == packetId) {
                boolean resent = resent(i);
                System.arraycopy(entries, i + 1, entries, i, size - i - 1);
                if (sequences != null) {
                    System.arraycopy(sequences, i + 1, sequences, i, size - i - 1);
                }
                size--;
                return resent ? Ack.AFTER_RESEND : Ack.FIRST_SEND;
            }
        }
        return Ack.UNKNOWN;
    }

    /** Whether {@code packetId} waits for its PUBACK here (a new PUBLISH must not reuse it). */
    boolean holds(int packetId) {
        for (int i = 0; i < size; i++) {
            if (packetId(i) == packetId) {
                return true;
            }
        }
        return false;
    }

    int size() {
        return size;
    }

    int packetId(int i) {
        return (int) (entries[i] & 0xFFFF);
    }

    int kind(int i) {
        return (int) (entries[i] >>> KIND_SHIFT) & 0xF;
    }

    int bytes(int i) {
        return (int) (entries[i] >>> BYTES_SHIFT) & MAX_BYTES;
    }

    /** The message number of entry {@code i}, or 0 when its payload was not numbered. */
    int sequence(int i) {
        return sequences == null ? 0 : sequences[i];
    }

    boolean resent(int i) {
        return ((entries[i] >>> RESENT_SHIFT) & 1) != 0;
    }

    /** Marks entry {@code i} as sent again, so its PUBACK counts as acknowledged after a resend. */
    void markResent(int i) {
        entries[i] |= 1L << RESENT_SHIFT;
    }

    /** Entries first sent at least {@code ageNanos} before {@code nowNanos}: PUBACKs overdue by then. */
    int olderThan(long ageNanos, long nowNanos) {
        long limit = seconds(nowNanos) - seconds(ageNanos);
        int n = 0;
        for (int i = 0; i < size; i++) {
            long sent = entries[i] >>> SECONDS_SHIFT;
            if (((limit - sent) & SECONDS_MASK) < (SECONDS_MASK >>> 1)) {
                n++;
            }
        }
        return n;
    }

    /** Forgets every entry (the device gave its messages up); returns how many there were. */
    int clear() {
        int n = size;
        size = 0;
        return n;
    }

    private static long seconds(long nanos) {
        return Math.floorDiv(nanos, 1_000_000_000L);
    }
}
