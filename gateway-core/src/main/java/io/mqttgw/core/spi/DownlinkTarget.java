package io.mqttgw.core.spi;

import java.util.concurrent.CompletionStage;

/** The gateway side of downlink: hands a message to the connection of its device. Callable from any thread. */
public interface DownlinkTarget {

    /** What became of a downlink message. */
    enum Outcome {
        WRITTEN,
        NOT_CONNECTED,
        NOT_SUBSCRIBED
    }

    CompletionStage<Outcome> deliver(DownlinkMessage message);
}
