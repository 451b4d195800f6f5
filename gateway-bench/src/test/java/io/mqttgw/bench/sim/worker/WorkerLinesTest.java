package io.mqttgw.bench.sim.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class WorkerLinesTest {

    @Test
    void statsLineCarriesEveryCounterAndTheHistogramsExactly() {
        Histogram ack = new Histogram(3);
        ack.recordValue(1_500);
        ack.recordValue(90_000);
        Histogram connect = new Histogram(3);
        connect.recordValue(7_000_000);
        Histogram ping = new Histogram(3);
        ping.recordValue(2_500);
        WorkerReport r = new WorkerReport(2, 1234L, 100, 90, 5, 80, 10, 88, 1_764_050_000_123L, 17,
                Map.of("connect_refused", 3L, "tls_handshake_timeout", 1L), 500, 400, 399, 7, 2, 1, 90, 1L << 33,
                ack, connect, Map.of("node.0.connected", 60L, "node.1.refused", 4L,
                        "max.lastReturnEpochMillis", 1_764_050_000_999L), ping);
        String line = WorkerLines.stats(r);
        assertTrue(line.startsWith("{\"type\":\"stats\"") && !line.contains("\n"), line);
        WorkerLines.Line parsed = WorkerLines.parse(line);
        assertEquals("stats", parsed.type());
        WorkerReport back = parsed.stats();
        assertEquals(r.worker(), back.worker());
        assertEquals(r.timeMillis(), back.timeMillis());
        assertEquals(r.connected(), back.connected());
        assertEquals(r.connecting(), back.connecting());
        assertEquals(r.handshakesFull(), back.handshakesFull());
        assertEquals(r.handshakesResumed(), back.handshakesResumed());
        assertEquals(r.connacks(), back.connacks());
        assertEquals(r.lastConnackMillis(), back.lastConnackMillis());
        assertEquals(17, back.startsMissed());
        assertEquals(r.failures(), back.failures());
        assertEquals(r.published(), back.published());
        assertEquals(r.publishedQos1(), back.publishedQos1());
        assertEquals(r.acked(), back.acked());
        assertEquals(r.pings(), back.pings());
        assertEquals(r.dropped(), back.dropped());
        assertEquals(r.unexpectedDisconnects(), back.unexpectedDisconnects());
        assertEquals(r.subscribed(), back.subscribed());
        assertEquals(r.rssBytes(), back.rssBytes());
        assertEquals(ack, back.ackLatency());
        assertEquals(connect, back.connectLatency());
        assertEquals(r.fleet(), back.fleet());
        assertEquals(ping, back.pingLatency());
    }

    @Test
    void controlLinesRoundTripAndMessagesAreEscaped() {
        WorkerLines.Line ready = WorkerLines.parse(WorkerLines.ready(1, 9000, "epoll"));
        assertEquals("ready", ready.type());
        assertEquals(1, ready.worker());
        assertNull(ready.stats());
        assertEquals(17, WorkerLines.parse(WorkerLines.dropped(0, 17)).count());
        String nasty = "bad \"quote\"\nand \\ backslash";
        WorkerLines.Line error = WorkerLines.parse(WorkerLines.error(3, nasty));
        assertEquals(nasty, error.message());
    }

    @Test
    void unknownFieldsFromANewerWorkerAreSkipped() {
        WorkerLines.Line l = WorkerLines.parse(
                "{\"type\":\"dropped\",\"extra\":{\"a\":[1,2,{\"b\":3}]},\"worker\":4,\"count\":5,\"flag\":true}");
        assertEquals(4, l.worker());
        assertEquals(5, l.count());
    }

    @Test
    void malformedLinesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> WorkerLines.parse("{\"type\":\"stats\",\"worker\":"));
        assertThrows(IllegalArgumentException.class, () -> WorkerLines.parse("[1,2]"));
        assertThrows(IllegalArgumentException.class, () -> WorkerLines.parse("{\"worker\":1}"));
    }
}
