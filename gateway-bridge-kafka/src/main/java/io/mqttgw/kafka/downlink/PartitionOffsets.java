package io.mqttgw.kafka.downlink;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The partitions the downlink consumer is assigned and, for each, how far its records are done: a partition's offset
 * to commit is the one after its last record such that every record before it completed (at least once into the
 * gateway; what was in flight at a crash is read again). Consumer thread only.
 */
final class PartitionOffsets {
    private final Map<TopicPartition, Progress> progress = new HashMap<>();

    boolean isEmpty() {
        return progress.isEmpty();
    }

    /** The partitions assigned now (a live view). */
    Set<TopicPartition> partitions() {
        return progress.keySet();
    }

    /**
     * Makes {@code found} the assigned partitions, keeping the progress of those that stay; answers whether that
     * changed anything.
     */
    boolean assign(Set<TopicPartition> found) {
        if (found.equals(progress.keySet())) {
            return false;
        }
        progress.keySet().retainAll(found);
        for (TopicPartition tp : found) {
            progress.computeIfAbsent(tp, Progress::new);
        }
        return true;
    }

    /** Starts tracking a record just read; null when its partition is no longer assigned. */
    Pending track(ConsumerRecord<byte[], byte[]> record) {
        Progress p = progress.get(new TopicPartition(record.topic(), record.partition()));
        if (p == null) {
            return null;
        }
        Pending pending = new Pending(p, record.offset());
        p.pending.add(pending);
        return pending;
    }

    /** The offsets that advanced since they were last handed out, marked as handed out. */
    Map<TopicPartition, OffsetAndMetadata> committable() {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (Progress p : progress.values()) {
            if (p.next >= 0 && p.dirty) {
                offsets.put(p.partition, new OffsetAndMetadata(p.next));
                p.dirty = false;
            }
        }
        return offsets;
    }

    /** A commit of these partitions failed: hand their offsets out again next time. */
    void commitFailed(Set<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            Progress p = progress.get(tp);
            if (p != null) {
                p.dirty = true;
            }
        }
    }

    /** A partition's records in the order read; {@link #next} is the offset to commit. */
    private static final class Progress {
        final TopicPartition partition;
        final ArrayDeque<Pending> pending = new ArrayDeque<>();
        long next = -1;
        boolean dirty;

        Progress(TopicPartition partition) {
            this.partition = partition;
        }

        void done(Pending p) {
            p.done = true;
            while (!pending.isEmpty() && pending.peek().done) {
                next = pending.poll().offset + 1;
                dirty = true;
            }
        }
    }

    /** One record read and not yet committable. Its state is read and written on the consumer thread only. */
    static final class Pending {
        private final Progress progress;
        private final long offset;
        private boolean done;

        private Pending(Progress progress, long offset) {
            this.progress = progress;
            this.offset = offset;
        }

        TopicPartition partition() {
            return progress.partition;
        }

        /** The record completed (delivered, refused, skipped): its partition's offset may advance past it. */
        void done() {
            progress.done(this);
        }
    }
}
