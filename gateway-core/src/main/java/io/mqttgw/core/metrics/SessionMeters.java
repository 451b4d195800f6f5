package io.mqttgw.core.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Meters of sessions: how each was opened at CONNECT (a persistent one resumed or new, a clean one, or one the store
 * did not answer for in time) and the session store calls that failed, by operation. Created once, so counting is
 * one increment.
 *
 * <p>Thread-safe; counted from every event loop and the session store's threads, read at scrape time on the admin
 * thread.
 */
final class SessionMeters {
    private final Map<String, Counter> opened = new HashMap<>();
    private final Map<String, Counter> storeErrors = new HashMap<>();

    SessionMeters(MeterRegistry registry, List<String> storeOperations) {
        for (String kind : new String[] {"resumed", "new", "clean", "unavailable"}) {
            opened.put(kind, Counter.builder("mqttgw.sessions.opened").tag("session", kind)
                    .description("Sessions opened at CONNECT: a persistent one resumed or new, a clean one, or a "
                            + "persistent one the session store did not answer for in time (served as new)")
                    .register(registry));
        }
        for (String op : storeOperations) {
            storeErrors.put(op, Counter.builder("mqttgw.session.store.errors").tag("operation", op)
                    .description("Session store calls that failed or timed out, by operation").register(registry));
        }
    }

    /** @param kind resumed, new, clean or unavailable */
    Counter opened(String kind) {
        return opened.get(kind);
    }

    Counter storeErrors(String operation) {
        return storeErrors.get(operation);
    }
}
