package io.mqttgw.core.connection;

import io.netty.channel.ChannelPipeline;

/** Installs the handlers of an open session once CONNECT is accepted; implemented by the channel initializer. */
@FunctionalInterface
public interface SessionPhase {
    /**
     * @param pipeline         the channel's pipeline, on its event loop
     * @param afterName        name of the handler the session handlers follow
     * @param keepAliveSeconds the CONNECT's keepalive; 0 disables the keepalive check
     */
    void install(ChannelPipeline pipeline, String afterName, int keepAliveSeconds);
}
