package io.mqttgw.core.testkit;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * The event log ({@code io.mqttgw.events}), or another logger, at INFO, captured for a test: {@link #lines()} are the
 * formatted messages in order. Close it to put the logger back. Thread-safe (appends come from event loops).
 */
public final class EventLogCapture implements AutoCloseable {
    private static final String EVENTS = "io.mqttgw.events";
    private final String logger;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final LoggerContext logs = (LoggerContext) LogManager.getContext(false);
    private final AbstractAppender appender;

    public EventLogCapture() {
        this(EVENTS);
    }

    /** The lines of the logger named {@code logger} (and of its children). */
    public EventLogCapture(String logger) {
        this.logger = logger;
        appender = new AbstractAppender("capture-" + logger, null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                lines.add(event.getMessage().getFormattedMessage());
            }
        };
        appender.start();
        LoggerConfig config = new LoggerConfig(logger, Level.INFO, false);
        config.addAppender(appender, Level.INFO, null);
        logs.getConfiguration().addLogger(logger, config);
        logs.updateLoggers();
    }

    public List<String> lines() {
        return lines;
    }

    @Override
    public void close() {
        logs.getConfiguration().removeLogger(logger);
        logs.updateLoggers();
        appender.stop();
    }
}
