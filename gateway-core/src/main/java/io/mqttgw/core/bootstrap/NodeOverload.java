package io.mqttgw.core.bootstrap;

import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.admission.AdmissionControl;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.overload.OverloadMonitor;
import io.mqttgw.core.spi.OverloadListener;
import io.mqttgw.core.spi.RouteStore;
import io.mqttgw.core.spi.UplinkSink;
import io.netty.channel.EventLoopGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The node's overload monitor with what reacts to it: the built-in {@link OverloadReactions} and every
 * {@link OverloadListener} on the class path. Started last, once the listeners it may close are bound.
 *
 * <p>Started and closed by the thread that starts and stops the node; the monitor samples and notifies its
 * listeners on a thread of its own; {@link #overloaded} and {@link #refusingDevices} are read from any thread.
 */
final class NodeOverload implements AutoCloseable {
    private final OverloadMonitor monitor;
    private final OverloadReactions reactions;

    private NodeOverload(OverloadMonitor monitor, OverloadReactions reactions) {
        this.monitor = monitor;
        this.reactions = reactions;
    }

    /** The monitor started when {@code overload.enabled}, else nothing watched. */
    static NodeOverload start(GatewayConfig.Overload config, AdmissionControl admission, DeviceListeners listeners,
                              EventLoopGroup io, UplinkSink sink, RouteStore routes, MeterRegistry meters) {
        if (!config.enabled()) {
            return new NodeOverload(null, null);
        }
        List<OverloadListener> listening = new ArrayList<>();
        OverloadReactions reactions = new OverloadReactions(config, admission, listeners);
        listening.add(reactions);
        ServiceLoader.load(OverloadListener.class, NodeOverload.class.getClassLoader()).forEach(listening::add);
        OverloadMonitor monitor = new OverloadMonitor(config, io, admission, sink::pressure, routes::pressure,
                listening, meters);
        monitor.start();
        return new NodeOverload(monitor, reactions);
    }

    /** The monitor, or null when overload is not watched; what a reload gives new thresholds to. */
    OverloadMonitor monitor() {
        return monitor;
    }

    /** Whether the node is overloaded now (the monitor's view). */
    boolean overloaded() {
        return monitor != null && monitor.overloaded();
    }

    /** Whether the built-in reactions last saw the node overloaded: the readiness answer. */
    boolean refusingDevices() {
        return reactions != null && reactions.overloaded();
    }

    @Override
    public void close() {
        if (monitor != null) {
            monitor.close();
        }
    }
}
