package io.mqttgw.bench.sim.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PrometheusTextTest {
    private static final String TEXT = """
            # HELP jvm_memory_used_bytes The amount of used memory
            # TYPE jvm_memory_used_bytes gauge
            jvm_memory_used_bytes{area="heap",id="G1 Eden Space",node="n"} 100.0
            jvm_memory_used_bytes{area="heap",id="G1 Old Gen",node="n"} 250.0
            jvm_memory_used_bytes{area="nonheap",id="Metaspace",node="n"} 7.0
            mqttgw_connections_open{node="n"} 1.8E4
            process_cpu_time_ns_total 3.34E9
            """;

    @Test
    void sumsEverySeriesMatchingTheLabels() {
        PrometheusText p = PrometheusText.parse(TEXT);
        assertEquals(350.0, p.sum("jvm_memory_used_bytes", "area=\"heap\""));
        assertEquals(357.0, p.sum("jvm_memory_used_bytes"));
    }

    @Test
    void readsScientificNotationAndUnlabelledSeries() {
        PrometheusText p = PrometheusText.parse(TEXT);
        assertEquals(18_000.0, p.sum("mqttgw_connections_open"));
        assertEquals(3.34e9, p.sum("process_cpu_time_ns_total"));
    }

    @Test
    void missingMetricIsNaN() {
        assertTrue(Double.isNaN(PrometheusText.parse(TEXT).sum("nope")));
    }
}
