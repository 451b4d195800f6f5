package io.mqttgw.core.events;

import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies {@code log.level} to the gateway's loggers ({@code io.mqttgw}) at startup and on a reload. Core knows only
 * the SLF4J API, so log4j is reached by name when it is the backend; with another backend the key does nothing (said
 * once in the log). Called from the startup and reload threads, never an event loop.
 */
public final class LogLevels {
    private static final Logger LOG = LoggerFactory.getLogger(LogLevels.class);
    private static final String ROOT = "io.mqttgw";

    private LogLevels() {
    }

    /**
     * @param level {@code config} (what log4j2.xml says: the file is read again) or a level name
     * @return whether the level was applied
     */
    public static boolean apply(String level) {
        try {
            if ("config".equals(level)) {
                Object context = Class.forName("org.apache.logging.log4j.LogManager").getMethod("getContext",
                        boolean.class).invoke(null, false);
                context.getClass().getMethod("reconfigure").invoke(context);
                return true;
            }
            Class<?> levels = Class.forName("org.apache.logging.log4j.Level");
            Object value = levels.getMethod("toLevel", String.class).invoke(null, level.toUpperCase(Locale.ROOT));
            Class.forName("org.apache.logging.log4j.core.config.Configurator")
                    .getMethod("setLevel", String.class, levels).invoke(null, ROOT, value);
            return true;
        } catch (ReflectiveOperationException | LinkageError e) {
            LOG.warn("log.level {} not applied: the logging backend is not log4j-core ({})", level, e.toString());
            return false;
        }
    }
}
