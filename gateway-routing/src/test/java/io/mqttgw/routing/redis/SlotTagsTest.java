package io.mqttgw.routing.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SlotTagsTest {
    private static final RouteKeys KEYS = new RouteKeys("mqttgw");

    @Test
    void everySlotHasItsOwnTagInThatSlot() {
        Set<String> tags = new HashSet<>();
        for (int slot = 0; slot < ClusterShards.SLOTS; slot++) {
            String tag = SlotTags.of(slot);
            assertEquals(slot, ClusterShards.slot(tag), tag);
            assertTrue(tags.add(tag), "tag " + tag + " used twice");
        }
    }

    /** The documented rule, which other nodes rely on to find a dead node's index: these values never change. */
    @Test
    void theTagIsTheSmallestNumberInTheSlot() {
        assertEquals("3560", SlotTags.of(0));
        assertEquals("39296", SlotTags.of(ClusterShards.SLOTS - 1));
        for (int slot = 0; slot < ClusterShards.SLOTS; slot += 101) {
            int tag = Integer.parseInt(SlotTags.of(slot));
            for (int smaller = 0; smaller < tag; smaller++) {
                assertTrue(ClusterShards.slot(Integer.toString(smaller)) != slot, "slot " + slot + ": " + smaller);
            }
        }
    }

    @Test
    void aRouteAndItsIndexEntryShareASlot() {
        for (int i = 0; i < 5000; i++) {
            String id = i % 3 == 0 ? "dev-" + i : i % 3 == 1 ? "ü-" + i + "/x" : "{" + i + "}";
            assertEquals(ClusterShards.slot(KEYS.route(id)), ClusterShards.slot(KEYS.nodeSlotRoutesOf("gw-1", id)),
                    id);
        }
        assertEquals("mqttgw:node-routes:{3560}:gw-1", KEYS.nodeSlotRoutes("gw-1", 0));
    }
}
