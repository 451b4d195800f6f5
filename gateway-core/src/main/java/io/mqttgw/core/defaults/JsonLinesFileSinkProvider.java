package io.mqttgw.core.defaults;

import io.mqttgw.core.config.CoreConfigKeys;
import io.mqttgw.core.config.ConfigValues;
import io.mqttgw.core.spi.ProviderContext;
import io.mqttgw.core.spi.UplinkSink;
import io.mqttgw.core.spi.UplinkSinkProvider;

/** {@code uplink.sink: file}, the default. */
public final class JsonLinesFileSinkProvider implements UplinkSinkProvider {
    @Override
    public String name() {
        return "file";
    }

    @Override
    public UplinkSink create(ProviderContext context) {
        ConfigValues v = context.config().values();
        JsonLinesFileSink sink = new JsonLinesFileSink(v.path(CoreConfigKeys.UPLINK_FILE_DIR),
                v.get(CoreConfigKeys.UPLINK_FILE_MAX_SIZE), v.get(CoreConfigKeys.UPLINK_FILE_MAX_FILES),
                v.get(CoreConfigKeys.UPLINK_FILE_QUEUE_CAPACITY), context.nodeId());
        context.meters().gauge("mqttgw.uplink.file.queue.depth", sink, JsonLinesFileSink::queueDepth);
        return sink;
    }
}
