package io.mqttgw.bench.sim.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SourceAddressesTest {

    @Test
    void expandsRangeInclusive() {
        SourceAddresses a = SourceAddresses.parse("source", "127.0.0.2-127.0.0.250");
        assertEquals(249, a.size());
        assertEquals("127.0.0.2", a.addresses().get(0).getHostAddress());
        assertEquals("127.0.0.250", a.addresses().get(248).getHostAddress());
    }

    @Test
    void rangeCrossesOctetBoundary() {
        SourceAddresses a = SourceAddresses.parse("source", "10.0.0.254-10.0.1.1");
        assertEquals(4, a.size());
        assertEquals("10.0.1.0", a.addresses().get(2).getHostAddress());
    }

    @Test
    void combinesListAndRanges() {
        assertEquals(4, SourceAddresses.parse("source", "127.0.0.2,127.0.0.5-127.0.0.7").size());
    }

    @Test
    void noneMeansKernelChooses() {
        assertTrue(SourceAddresses.parse("source", "none").isEmpty());
    }

    @Test
    void rejectsReversedRange() {
        assertThrows(BadArgumentException.class, () -> SourceAddresses.parse("source", "127.0.0.9-127.0.0.2"));
    }

    @Test
    void rejectsMalformedAddress() {
        assertThrows(BadArgumentException.class, () -> SourceAddresses.parse("source", "127.0.0.256"));
        assertThrows(BadArgumentException.class, () -> SourceAddresses.parse("source", "127.0.0"));
        assertThrows(BadArgumentException.class, () -> SourceAddresses.parse("source", "localhost"));
    }

    @Test
    void rejectsHugeRangeBeforeExpandingIt() {
        assertThrows(BadArgumentException.class, () -> SourceAddresses.parse("source", "10.0.0.0-10.255.255.255"));
    }

    @Test
    void workerSlicesAreDisjointAndCoverEveryAddress() {
        SourceAddresses all = SourceAddresses.parse("source", "127.0.0.2-127.0.0.11");
        Set<InetAddress> seen = new HashSet<>();
        int total = 0;
        for (int w = 0; w < 3; w++) {
            SourceAddresses slice = all.slice(w, 3);
            total += slice.size();
            seen.addAll(slice.addresses());
        }
        assertEquals(10, total);
        assertEquals(10, seen.size());
    }
}
