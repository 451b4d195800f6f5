package io.mqttgw.core.bootstrap;

import io.mqttgw.core.admission.AdmissionBudget;
import io.mqttgw.core.admission.AdmissionControl;
import io.mqttgw.core.config.CoreConfigKeys;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.events.LogLevels;
import io.mqttgw.core.overload.OverloadMonitor;
import io.mqttgw.core.spi.Authenticator;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pushes the keys a reload changed into the running components that hold them: overload thresholds, the admission
 * budget, log levels, the authenticator's own keys. Runs on the thread that reloads (the housekeeping thread, or the
 * signal thread for SIGHUP), one reload at a time ({@link ConfigReloader}).
 */
final class LiveReconfiguration {
    private static final Logger LOG = LoggerFactory.getLogger(LiveReconfiguration.class);

    private final int ioThreads;
    private final AdmissionControl admission;
    private final Authenticator authenticator;
    /** The monitor, or null; supplied late because it starts after the listeners. */
    private final Supplier<OverloadMonitor> overload;

    LiveReconfiguration(int ioThreads, AdmissionControl admission, Authenticator authenticator,
                        Supplier<OverloadMonitor> overload) {
        this.ioThreads = ioThreads;
        this.admission = admission;
        this.authenticator = authenticator;
        this.overload = overload;
    }

    /** Whether the authenticator applies {@code key} on a reload (its own keys; read at each reload). */
    boolean authenticatorReloads(String key) {
        return authenticator.reloadableKeys().contains(key);
    }

    void apply(GatewayConfig next, List<String> changed) {
        OverloadMonitor monitor = overload.get();
        if (monitor != null && changed.stream().anyMatch(k -> k.startsWith("overload."))) {
            monitor.retune(next.overload().thresholds());
        }
        if (changed.stream().anyMatch(k -> k.startsWith("admission.")
                || k.equals(CoreConfigKeys.OVERLOAD_LAG.name()))) {
            // the budget is derived from the admission keys and the lag threshold, as at startup
            AdmissionBudget budget = AdmissionBudget.derive(next.admission(), ioThreads,
                    next.overload().eventLoopLag());
            admission.retune(budget);
            LOG.info("admission now {}", budget.describe());
        }
        if (changed.contains(CoreConfigKeys.LOG_LEVEL.name())) {
            LogLevels.apply(next.values().get(CoreConfigKeys.LOG_LEVEL));
        }
        if (changed.stream().anyMatch(authenticator.reloadableKeys()::contains)) {
            authenticator.reconfigure(next);
        }
    }
}
