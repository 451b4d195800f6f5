package io.mqttgw.core.bootstrap;

import java.util.function.Supplier;

/**
 * What {@code /health/ready} answers: why this node should get no new devices now (leaving, overloaded, its
 * listeners closed), or null when it should. Asked on the admin thread; reads only state the drain, the overload
 * reactions and the listeners publish for any thread.
 */
final class Readiness implements Supplier<String> {
    private final GracefulDrain drain;
    private final DeviceListeners listeners;
    /** The overload watch, or null before it starts (it starts after the admin plane). */
    private final Supplier<NodeOverload> overload;

    Readiness(GracefulDrain drain, DeviceListeners listeners, Supplier<NodeOverload> overload) {
        this.drain = drain;
        this.listeners = listeners;
        this.overload = overload;
    }

    @Override
    public String get() {
        if (drain.leaving()) {
            return "draining";
        }
        NodeOverload watch = overload.get();
        if (watch != null && watch.refusingDevices()) {
            return "overloaded";
        }
        return listeners.accepting() ? null : "listeners closed";
    }
}
