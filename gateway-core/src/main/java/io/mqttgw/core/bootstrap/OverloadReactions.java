package io.mqttgw.core.bootstrap;

import io.mqttgw.core.admission.AdmissionControl;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.spi.OverloadListener;
import java.util.List;
import java.util.Map;

/**
 * The built-in reactions to overload: close the listening ports and fail {@code /health/ready} so the balancer sends
 * new devices elsewhere, refuse CONNECTs, hold new connections in the backlog; all undone on recovery. Runs on the
 * overload monitor's thread; {@link #overloaded} is read by readiness on the admin thread.
 */
final class OverloadReactions implements OverloadListener {
    private final GatewayConfig.Overload config;
    private final AdmissionControl admission;
    private final DeviceListeners listeners;
    private volatile boolean overloaded;

    OverloadReactions(GatewayConfig.Overload config, AdmissionControl admission, DeviceListeners listeners) {
        this.config = config;
        this.admission = admission;
        this.listeners = listeners;
    }

    @Override
    public void onOverloadChange(boolean overloaded, List<String> signalsOver, Map<String, Double> values) {
        this.overloaded = overloaded;
        admission.refuseConnects(overloaded && config.refuseConnects());
        if (config.pauseHandshakes()) {
            admission.holdForOverload(overloaded);
        }
        if (config.closeListeners()) {
            listeners.setOpen(!overloaded);
        }
    }

    /** The level as these reactions last saw it. */
    boolean overloaded() {
        return overloaded;
    }
}
