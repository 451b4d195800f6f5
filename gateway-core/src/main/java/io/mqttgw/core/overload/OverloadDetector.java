package io.mqttgw.core.overload;

import io.mqttgw.core.config.OverloadThreshold;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns signal samples into an overload level, with hysteresis twice over: a signal goes over at its entry
 * threshold and back only below its (lower) exit threshold, and the node leaves overload only after every signal
 * has stayed back for {@code recoveryHoldNanos}. On top, no change follows the previous one sooner than
 * {@code minHoldNanos}, whatever the signals do, so a node at the edge cannot flap its listeners open and shut; the
 * changes are counted. Not thread-safe: one monitor thread drives it.
 */
public final class OverloadDetector {

    private List<OverloadThreshold> thresholds;
    private final long recoveryHoldNanos;
    private final long minHoldNanos;
    private final Map<String, Boolean> over = new LinkedHashMap<>();
    private boolean overloaded;
    private long allBackSince = Long.MIN_VALUE;
    private boolean allBack;
    private long changedAt;
    private long changes;

    public OverloadDetector(List<OverloadThreshold> thresholds, long recoveryHoldNanos) {
        this(thresholds, recoveryHoldNanos, 0);
    }

    public OverloadDetector(List<OverloadThreshold> thresholds, long recoveryHoldNanos, long minHoldNanos) {
        this.thresholds = List.copyOf(thresholds);
        this.recoveryHoldNanos = recoveryHoldNanos;
        this.minHoldNanos = minHoldNanos;
        thresholds.forEach(t -> over.put(t.signal(), false));
    }

    /**
     * New enter and exit values for the signals this detector watches (a reload); a signal keeps whether it is over
     * until the next sample compares it with its new values. Signals it does not watch are ignored. Called on the
     * thread that calls {@link #update}.
     */
    public void retune(List<OverloadThreshold> next) {
        List<OverloadThreshold> kept = new java.util.ArrayList<>(thresholds.size());
        for (OverloadThreshold t : thresholds) {
            kept.add(next.stream().filter(n -> n.signal().equals(t.signal())).findFirst().orElse(t));
        }
        thresholds = List.copyOf(kept);
    }

    /** Feeds one round of samples; returns true when the level changed. */
    public boolean update(Map<String, Double> samples, long nowNanos) {
        for (OverloadThreshold t : thresholds) {
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
            if (!overloaded && mayChange(nowNanos)) {
                overloaded = true;
                changed(nowNanos);
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
        if (nowNanos - allBackSince >= recoveryHoldNanos && mayChange(nowNanos)) {
            overloaded = false;
            changed(nowNanos);
            return true;
        }
        return false;
    }

    private boolean mayChange(long nowNanos) {
        return changes == 0 || nowNanos - changedAt >= minHoldNanos;
    }

    private void changed(long nowNanos) {
        changedAt = nowNanos;
        changes++;
    }

    /** Times the level changed (entered or left), since this detector was made. */
    public long changes() {
        return changes;
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
