package io.mqttgw.core.spi;

import java.util.Map;

/**
 * Told when the node enters or leaves overload, e.g. to alert. Found with ServiceLoader (public no-argument
 * constructor) besides the built-in reactions. Called on the overload monitor's thread: return quickly.
 */
public interface OverloadListener {

    /**
     * @param overloaded whether the node is overloaded now
     * @param signalsOver the signals at or past their entry threshold (empty on recovery)
     * @param values     every signal's last sample
     */
    void onOverloadChange(boolean overloaded, java.util.List<String> signalsOver, Map<String, Double> values);
}
