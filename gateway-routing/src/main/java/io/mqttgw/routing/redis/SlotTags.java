package io.mqttgw.routing.redis;

/**
 * One fixed hash tag per Redis Cluster slot: the tag of slot {@code s} is the smallest non-negative integer, written
 * in decimal, whose CRC16 (as Redis computes a key's slot) modulo 16384 is {@code s}; slot 0's is {@code 3560}, slot
 * 16383's {@code 39296}, none is longer than six digits. A key {@code ...{<tag of s>}...} is in slot {@code s}, so a
 * node can name a key in the slot of any other key. The rule must never change: every node, of every version, finds
 * a dead node's per-slot route index by these names. Computed once per JVM (about 110,000 CRCs); immutable after, so
 * safe from any thread.
 */
final class SlotTags {
    private static final String[] TAGS = compute();

    private SlotTags() {
    }

    /** The hash tag (without braces) whose slot is {@code slot}. */
    static String of(int slot) {
        return TAGS[slot];
    }

    private static String[] compute() {
        String[] tags = new String[ClusterShards.SLOTS];
        int found = 0;
        for (int n = 0; found < tags.length; n++) {
            String tag = Integer.toString(n);
            int slot = ClusterShards.slot(tag);
            if (tags[slot] == null) {
                tags[slot] = tag;
                found++;
            }
        }
        return tags;
    }
}
