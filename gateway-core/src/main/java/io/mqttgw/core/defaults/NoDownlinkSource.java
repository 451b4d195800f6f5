package io.mqttgw.core.defaults;

import io.mqttgw.core.spi.DownlinkSource;
import io.mqttgw.core.spi.DownlinkTarget;

/** {@code downlink.source: none}: a node that only carries uplink. */
public final class NoDownlinkSource implements DownlinkSource {
    @Override
    public void start(DownlinkTarget target) {
        // nothing produces downlink on this node
    }
}
