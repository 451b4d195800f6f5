package io.mqttgw.core.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.Test;

class LogTextTest {

    @Test
    void escapesLineBreaksControlCharactersBackslashAndUnicodeSeparators() {
        assertEquals("a\\nb\\rc\\td", LogText.escape("a\nb\rc\td"));
        assertEquals("x\\u0000y\\u007fz\\u0085", LogText.escape("x\u0000y\u007fz\u0085"));
        assertEquals("p\\u2028q\\u2029", LogText.escape("p\u2028q\u2029"));
        assertEquals("back\\\\slash\\\\n", LogText.escape("back\\slash\\n"));
        assertEquals("null", LogText.escape(null));
    }

    @Test
    void escapesLineBreaksAndControlCharactersSoNoLineCanBeForged() {
        assertEquals("a\\nINFO forged\\r\\u001b[31m\\\\", LogText.escape("a\nINFO forged\r\u001b[31m\\"));
        String plain = "devices/dev-1/commands";
        assertSame(plain, LogText.escape(plain), "nothing to escape, nothing copied");
    }

    @Test
    void returnsPlainTextUnchanged() {
        String plain = "devices/dev-1/telemetry Gerät";
        assertSame(plain, LogText.escape(plain));
    }

    @Test
    void eventLogWritesAForgedLookingClientIdOnOneEscapedLine() throws InterruptedException {
        List<String> lines = new CopyOnWriteArrayList<>();
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration config = context.getConfiguration();
        AbstractAppender capture = new AbstractAppender("capture-events", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                lines.add(event.getMessage().getFormattedMessage());
            }
        };
        capture.start();
        LoggerConfig events = new LoggerConfig("io.mqttgw.events", Level.INFO, false);
        events.addAppender(capture, Level.INFO, null);
        config.addLogger("io.mqttgw.events", events);
        context.updateLoggers();
        try {
            String forged = "dev-1\n12:00:00.000 INFO  [main] events connected client=admin remote=10.0.0.1";
            EventLog log = new EventLog(1000);
            log.connected(forged, "/127.0.0.1:1234", "tcp");
            log.refused(forged, "/127.0.0.1:1234", "IDENTIFIER_REJECTED");
            log.disconnected("dev\u2028x", "/127.0.0.1:1234", "client_disconnect");

            // the tests run with asynchronous loggers: the lines arrive on the logging thread
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (lines.size() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(3, lines.size(), "lines: " + lines);
            for (String line : lines) {
                assertTrue(line.indexOf('\n') < 0 && line.indexOf('\u2028') < 0, "one line: " + line);
            }
            assertTrue(lines.get(0).startsWith("connected client=dev-1\\n12:00:00.000 INFO"), lines.get(0));
            assertTrue(lines.get(2).contains("client=dev\\u2028x"), lines.get(2));
        } finally {
            config.removeLogger("io.mqttgw.events");
            context.updateLoggers();
            capture.stop();
        }
    }
}
