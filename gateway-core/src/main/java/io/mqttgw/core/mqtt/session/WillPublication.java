package io.mqttgw.core.mqtt.session;

import io.mqttgw.core.metrics.GatewayMetrics;
import io.mqttgw.core.spi.DelayedWillStore;
import io.mqttgw.core.spi.UplinkMessage;
import io.mqttgw.core.spi.UplinkRejectedException;
import io.mqttgw.core.spi.UplinkSink;

/**
 * A will goes out as the device's last PUBLISH: counted as one received, stamped with the time it is published (its
 * expiry interval runs from then, not from CONNECT) and handed to the sink, whoever publishes it: the node whose
 * connection ended, or the node that claimed it in the fleet's store. Its topic passed the device's publish ACL at
 * CONNECT. Stateless and thread-safe; never blocks. Called on event loops and, for a will the fleet's store armed,
 * claimed or answered for, on that store's threads (sinks are called from every event loop already).
 */
public final class WillPublication implements DelayedWillStore.WillPublisher {
    private final GatewayMetrics metrics;
    private final UplinkSink sink;

    public WillPublication(GatewayMetrics metrics, UplinkSink sink) {
        this.metrics = metrics;
        this.sink = sink;
    }

    @Override
    public void publish(UplinkMessage will) {
        metrics.publishReceived(will.qos());
        UplinkMessage published = new UplinkMessage(will.clientId(), will.topic(), will.qos(), will.retain(),
                will.payload(), System.currentTimeMillis(), will.properties(), will.expiryInterval());
        sink.send(published).whenComplete((ignored, error) -> {
            if (error != null) {
                metrics.uplinkNotDelivered(UplinkRejectedException.isRefusal(error));
            }
        });
    }
}
