package io.mqttgw.core.config;

/**
 * One overload signal's thresholds as configured; a signal with {@code enter <= 0} is off. The signal names are the
 * overload monitor's samples; they are declared here so that configuration needs nothing of the monitor.
 */
public record OverloadThreshold(String signal, double enter, double exit) {
    public static final String EVENT_LOOP_LAG = "event_loop_lag_seconds";
    public static final String HEAP_AFTER_GC = "heap_after_gc_ratio";
    public static final String DIRECT_MEMORY = "direct_memory_ratio";
    public static final String HANDSHAKE_RATE = "handshakes_per_second";
    public static final String UPLINK_PRESSURE = "uplink_pressure";
    public static final String ROUTES_PRESSURE = "routes_pressure";

    public OverloadThreshold {
        if (enter > 0 && exit > enter) {
            throw new IllegalArgumentException(signal + ": exit threshold above the entry threshold");
        }
    }
}
