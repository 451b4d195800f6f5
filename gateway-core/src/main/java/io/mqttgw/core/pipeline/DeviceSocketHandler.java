package io.mqttgw.core.pipeline;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.mqtt.session.ConnectionLifecycleHandler;
import io.mqttgw.core.metrics.TrafficMeter;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * The device socket, first in the pipeline: the bytes that cross it are metered ({@link TrafficMeter}) and its
 * opening and closing keep the connection's books ({@link ConnectionLifecycleHandler}). One shared entry for both
 * jobs, since each pipeline entry costs every idle connection a context object; each job keeps its logic
 * in its own class. Stateless (state lives in {@link ConnectionContext}), shared by all channels of a listener; event
 * loop only.
 */
@Sharable
public final class DeviceSocketHandler extends ChannelDuplexHandler {
    private final TrafficMeter traffic;
    private final ConnectionLifecycleHandler lifecycle;

    public DeviceSocketHandler(SessionServices services) {
        this.traffic = new TrafficMeter(services.metrics());
        this.lifecycle = new ConnectionLifecycleHandler(services);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        lifecycle.opened();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        traffic.read(msg);
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        traffic.written(msg);
        ctx.write(msg, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        lifecycle.closed(ctx);
        ctx.fireChannelInactive();
    }
}
