package io.mqttgw.bench.sim.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SummaryJsonTest {

    @Test
    void writesPrettyValidJsonWithNonFiniteNumbersAsNull(@TempDir Path dir) throws Exception {
        Map<String, Object> publish = new LinkedHashMap<>();
        publish.put("gatewayCpuMicrosPerMessage", Double.NaN);
        publish.put("achievedRate", 99.5);
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("scenario", "publish \"quoted\"");
        summary.put("publish", publish);
        summary.put("problems", List.of());
        String json = SummaryJson.write(summary);
        assertTrue(json.contains("\n  \"publish\" : {"), json);
        assertTrue(json.contains("\"gatewayCpuMicrosPerMessage\" : null"), json);
        Path file = dir.resolve("summary.json");
        Files.writeString(file, json);
        Map<String, Object> back = SummaryJson.read(file);
        assertEquals("publish \"quoted\"", back.get("scenario"));
        @SuppressWarnings("unchecked")
        Map<String, Object> p = (Map<String, Object>) back.get("publish");
        assertNull(p.get("gatewayCpuMicrosPerMessage"));
        assertEquals(99.5, p.get("achievedRate"));
    }
}
