package io.mqttgw.core.bootstrap;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.admin.OperatorApi.ReloadReport;
import io.mqttgw.core.config.ConfigException;
import io.mqttgw.core.config.ConfigValues;
import io.mqttgw.core.config.CoreConfigKeys;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.config.LiveConfig;
import io.mqttgw.core.spi.Providers;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.SortedSet;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-reads the config file ({@code SIGHUP}, {@code POST /config/reload}) with the loader and checks startup uses: a
 * file that would not start the node is refused with the same one-line error and the running configuration stays.
 * A valid one becomes the {@link LiveConfig}; of its changes, the {@link #RELOADABLE} keys take effect now (new
 * CONNECTs get the new ACL, admission its new rate and handshake budget, the overload monitor its new thresholds,
 * the loggers their level) and the others are
 * named as needing a restart (compared with the configuration the node started with, so they stay named until
 * then). Counted in {@code mqttgw_config_reloads_total{outcome}}. One reload at a time; runs on the calling thread
 * (the housekeeping thread or the signal thread), never an event loop.
 */
final class ConfigReloader {
    private static final Logger LOG = LoggerFactory.getLogger(ConfigReloader.class);

    /** Keys a reload applies; every other changed key needs a restart. */
    static final Set<String> RELOADABLE = Set.of(CoreConfigKeys.ACL_PUBLISH.name(), CoreConfigKeys.ACL_SUBSCRIBE.name(),
            CoreConfigKeys.LOG_LEVEL.name(),
            CoreConfigKeys.ADMISSION_CONNECTION_RATE.name(), CoreConfigKeys.ADMISSION_MAX_HANDSHAKES.name(),
            CoreConfigKeys.ADMISSION_HANDSHAKE_COST.name(), CoreConfigKeys.ADMISSION_KNOWN_DEVICE_HANDSHAKE_COST.name(),
            CoreConfigKeys.ADMISSION_RESUMED_HANDSHAKE_COST.name(),
            CoreConfigKeys.OVERLOAD_LAG.name(), CoreConfigKeys.OVERLOAD_LAG_EXIT.name(),
                    CoreConfigKeys.OVERLOAD_HEAP.name(),
            CoreConfigKeys.OVERLOAD_HEAP_EXIT.name(), CoreConfigKeys.OVERLOAD_DIRECT.name(),
            CoreConfigKeys.OVERLOAD_DIRECT_EXIT.name(), CoreConfigKeys.OVERLOAD_HANDSHAKE_RATE.name(),
            CoreConfigKeys.OVERLOAD_HANDSHAKE_RATE_EXIT.name(), CoreConfigKeys.OVERLOAD_QUEUES.name(),
            CoreConfigKeys.OVERLOAD_QUEUES_EXIT.name(), CoreConfigKeys.OVERLOAD_UPLINK.name(),
            CoreConfigKeys.OVERLOAD_UPLINK_EXIT.name());

    /** Where the running configuration came from, read again as it was at startup. */
    record Source(Path file, Map<String, String> environment, Properties systemProperties) {
    }

    private final Source source;
    private final Providers providers;
    private final LiveConfig live;
    private final ConfigValues started;
    private final BiConsumer<GatewayConfig, List<String>> apply;
    private final Map<String, Counter> outcomes;
    /** Provider keys a reload applies (the authenticator's); read at each reload. */
    private final Predicate<String> providerReloadable;

    /** @param apply pushes a new configuration's changed reloadable keys (named) into the components that hold them */
    ConfigReloader(Source source, Providers providers, LiveConfig live, BiConsumer<GatewayConfig, List<String>> apply,
                   MeterRegistry meters, Predicate<String> providerReloadable) {
        this.providerReloadable = providerReloadable;
        this.source = source;
        this.providers = providers;
        this.live = live;
        this.started = live.current().values();
        this.apply = apply;
        this.outcomes = Map.of("applied", counter(meters, "applied"), "unchanged", counter(meters, "unchanged"),
                "refused", counter(meters, "refused"));
    }

    private static Counter counter(MeterRegistry meters, String outcome) {
        return Counter.builder("mqttgw.config.reloads").tag("outcome", outcome)
                .description("Config reloads (SIGHUP, POST /config/reload) by outcome: applied, unchanged, refused")
                .register(meters);
    }

    private boolean reloadable(String key) {
        return RELOADABLE.contains(key) || providerReloadable.test(key);
    }

    /** Re-reads the file for {@code who} (an operator or {@code signal:SIGHUP}); never throws for a bad file. */
    synchronized ReloadReport reload(String who) {
        GatewayConfig next;
        try {
            next = Gateway.configure(source.file(), providers, source.environment(), source.systemProperties());
        } catch (ConfigException e) {
            String error = "configuration error: " + e.getMessage();
            outcomes.get("refused").increment();
            LOG.error("config reload by {} refused, the running configuration stays: {}", who, error);
            return new ReloadReport("refused", List.of(), List.of(), error);
        }
        List<String> applied = new ArrayList<>();
        for (String key : live.current().values().changedKeys(next.values())) {
            if (reloadable(key)) {
                applied.add(key);
            }
        }
        List<String> restart = new ArrayList<>();
        SortedSet<String> sinceStart = started.changedKeys(next.values());
        for (String key : sinceStart) {
            if (!reloadable(key)) {
                restart.add(key);
            }
        }
        live.replace(next);
        if (!applied.isEmpty()) {
            apply.accept(next, applied);
        }
        String outcome = applied.isEmpty() ? "unchanged" : "applied";
        outcomes.get(outcome).increment();
        LOG.warn("config reload by {} from {}: {}{}{}", who, source.file(), outcome,
                applied.isEmpty() ? "" : ", applied " + applied,
                restart.isEmpty() ? "" : "; changed but needing a restart (not applied): " + restart);
        return new ReloadReport(outcome, List.copyOf(applied), List.copyOf(restart), null);
    }
}
