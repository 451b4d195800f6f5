package io.mqttgw.bench.sim.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonParserTest {

    @Test
    void roundTripsWhatJsonWrites() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("s", "a \"quoted\"\nline");
        m.put("n", 42L);
        m.put("d", 1.5);
        m.put("l", List.of(1L, "x", true));
        m.put("o", Map.of("k", 0L));
        m.put("z", null);
        assertEquals(m, JsonParser.parse(Json.write(m)));
    }

    @Test
    void writesNonFiniteNumbersAsNull() {
        assertEquals("[null,null]", Json.write(List.of(Double.NaN, Double.POSITIVE_INFINITY)));
    }

    @Test
    void rejectsTrailingGarbageAndUnterminatedInput() {
        assertThrows(IllegalArgumentException.class, () -> JsonParser.parse("{} x"));
        assertThrows(IllegalArgumentException.class, () -> JsonParser.parse("{\"a\":"));
        assertThrows(IllegalArgumentException.class, () -> JsonParser.parse("\"abc"));
    }

    @Test
    void boundsNestingDepth() {
        assertThrows(IllegalArgumentException.class, () -> JsonParser.parse("[".repeat(100) + "]".repeat(100)));
    }
}
