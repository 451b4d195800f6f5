package io.mqttgw.routing.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The slot computation against values Redis documents and answers (CLUSTER KEYSLOT). */
class ClusterShardsTest {
    @Test
    void computesTheSlotRedisComputes() {
        assertEquals(12739, ClusterShards.slot("123456789"));
        assertEquals(12182, ClusterShards.slot("foo"));
        assertEquals(ClusterShards.slot("user1000"), ClusterShards.slot("{user1000}.following"));
        assertEquals(ClusterShards.slot("device-1"), ClusterShards.slot("mqttgw:route:{device-1}"));
    }
}
