package io.mqttgw.core.overload;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns signal samples into an overload level, with hysteresis twice over: a signal goes over at its entry
 * threshold and back only below its (lower) exit threshold, and the node leaves overload only after every signal
 * has stayed back for {@code recoveryHoldNanos}. So a node at the edge does not flap its listeners open and shut.
 * Not thread-safe: one monitor thread drives it.
 */
public final class OverloadDetector {

    /** A signal's thresholds; a signal with {@code enter <= 0} is off. */
    public record Threshold(String signal, double enter, double exit) {
        public Threshold {
            if (enter > 0 && exit > enter) {
                throw new IllegalArgumentException(signal + ": exit threshold above the entry threshold");
            }
        }
    }

    private final List<Threshold> thresholds;
    private final long recoveryHoldNanos;
    private final Map<String, Boolean> over = new LinkedHashMap<>();
    private boolean overloaded;
    private long allBackSince = Long.MIN_VALUE;
    private boolean allBack;

    public OverloadDetector(List<Threshold> thresholds, long recoveryHoldNanos) {
        this.thresholds = List.copyOf(thresholds);
        this.recoveryHoldNanos = recoveryHoldNanos;
        thresholds.forEach(t -> over.put(t.signal(), false));
    }

    /** Feeds one round of samples; returns true when the level changed. */
    public boolean update(Map<String, Double> samples, long nowNanos) {
        for (Threshold t : thresholds) {
            Double value = samples.get(t.signal());
            if (t.enter() <= 0 || value == null || value.isNaN()) {
                continue;
            }
            boolean was = over.get(t.signal());
            over.put(t.signal(), was ? value >= t.exit() : value >= t.enter());
        }
        boolean any = over.containsValue(true);
        if (any) {
            allBack = false;
            if (!overloaded) {
                overloaded = true;
                return true;
            }
            return false;
        }
        if (!overloaded) {
            return false;
        }
        if (!allBack) {
            allBack = true;
            allBackSince = nowNanos;
        }
        if (nowNanos - allBackSince >= recoveryHoldNanos) {
            overloaded = false;
            return true;
        }
        return false;
    }

    public boolean overloaded() {
        return overloaded;
    }

    /** The signals now past their thresholds. */
    public List<String> signalsOver() {
        List<String> names = new ArrayList<>();
        over.forEach((name, isOver) -> {
            if (isOver) {
                names.add(name);
            }
        });
        return names;
    }
}
