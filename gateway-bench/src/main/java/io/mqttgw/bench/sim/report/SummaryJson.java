package io.mqttgw.bench.sim.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * {@code summary.json}: the run's summary map written pretty-printed (2-space indent) by Jackson, a number that is not
 * finite (a rate over no messages) as {@code null} so jq and other readers get valid JSON; and read back for a
 * comparison report. Stateless; the mapper is thread-safe.
 */
public final class SummaryJson {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .registerModule(new SimpleModule("finite-numbers")
                    .addSerializer(Double.class, new FiniteNumber())
                    .addSerializer(Float.class, new FiniteNumber()));

    private SummaryJson() {
    }

    public static String write(Map<String, Object> summary) {
        try {
            return MAPPER.writeValueAsString(summary);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Map<String, Object> read(Path file) throws IOException {
        return MAPPER.readValue(file.toFile(), new TypeReference<Map<String, Object>>() { });
    }

    /** A double or float, or null where it is not finite (JSON has no NaN or infinity). */
    private static final class FiniteNumber extends StdSerializer<Number> {
        private static final long serialVersionUID = 1L;

        FiniteNumber() {
            super(Number.class);
        }

        @Override
        public void serialize(Number n, JsonGenerator g, SerializerProvider p) throws IOException {
            double d = n.doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                g.writeNull();
            } else if (n instanceof Float f) {
                g.writeNumber(f);
            } else {
                g.writeNumber(d);
            }
        }
    }
}
