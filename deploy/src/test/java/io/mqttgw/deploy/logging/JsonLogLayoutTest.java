package io.mqttgw.deploy.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.layout.template.json.util.JsonReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped config/log4j2-json.xml (GATEWAY_LOG_FORMAT=json) writes one JSON object a line with the documented,
 * stable field names, for the main log and the event log (logger io.mqttgw.events) alike, and an exception as
 * fields, not as extra lines.
 */
class JsonLogLayoutTest {
    private static final Path CONFIG = Path.of("src/main/dist/config/log4j2-json.xml");

    @TempDir
    Path dir;

    @Test
    void writesOneJsonObjectPerLineWithStableFieldNames() throws Exception {
        String before = System.getProperty("gateway.log.dir");
        System.setProperty("gateway.log.dir", dir.toString());
        // bin/gateway puts config/ on the class path, where the layout finds classpath:log-event.json
        Thread thread = Thread.currentThread();
        ClassLoader loader = thread.getContextClassLoader();
        LoggerContext context = new LoggerContext("json-layout-test", null, CONFIG.toUri());
        try (URLClassLoader withConfig = new URLClassLoader(new URL[] {CONFIG.getParent().toUri().toURL()}, loader)) {
            thread.setContextClassLoader(withConfig);
            context.start();
            context.getLogger("io.mqttgw.events").info("connected client={} addr={}", "device-1", "10.0.0.7:53122");
            context.getLogger("io.mqttgw.core.bootstrap.Gateway").warn("sink failing\nsecond line",
                    new IllegalStateException("kafka: timeout"));
        } finally {
            context.stop();
            thread.setContextClassLoader(loader);
            if (before == null) {
                System.clearProperty("gateway.log.dir");
            } else {
                System.setProperty("gateway.log.dir", before);
            }
        }
        List<String> lines = Files.readAllLines(dir.resolve("gateway.log"));
        assertEquals(2, lines.size(), "one line per event, a multi-line message and a stack trace included:\n"
                + String.join("\n", lines));

        Map<?, ?> event = (Map<?, ?>) JsonReader.read(lines.get(0));
        assertEquals(Set.of("timestamp", "level", "logger", "thread", "message"), event.keySet());
        assertEquals("INFO", event.get("level"));
        assertEquals("io.mqttgw.events", event.get("logger"));
        assertEquals("connected client=device-1 addr=10.0.0.7:53122", event.get("message"));
        assertTrue(((String) event.get("timestamp")).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z"),
                event.toString());

        Map<?, ?> failure = (Map<?, ?>) JsonReader.read(lines.get(1));
        assertEquals(Set.of("timestamp", "level", "logger", "thread", "message", "error.type", "error.message",
                "error.stack_trace"), failure.keySet());
        assertEquals("WARN", failure.get("level"));
        assertEquals("sink failing\nsecond line", failure.get("message"));
        assertEquals("java.lang.IllegalStateException", failure.get("error.type"));
        assertEquals("kafka: timeout", failure.get("error.message"));
        assertTrue(((String) failure.get("error.stack_trace")).contains("JsonLogLayoutTest"));
    }
}
