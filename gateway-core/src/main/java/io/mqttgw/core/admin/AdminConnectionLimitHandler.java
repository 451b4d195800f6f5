package io.mqttgw.core.admin;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.Iterator;
import java.util.LinkedHashSet;

/**
 * Keeps one admin listener within {@code admin.max-connections} open connections. Past the bound the oldest connection
 * is closed, not the new one: a flood of sockets that sit open cannot lock the balancer's short-lived health check
 * out, it only pushes the flood's own oldest sockets out (counted as {@code reason="limit"}). One instance per
 * listener, shared by its connections; the admin plane has a single event loop, and this runs on it only.
 */
@ChannelHandler.Sharable
final class AdminConnectionLimitHandler extends ChannelInboundHandlerAdapter {
    private final int max;
    private final AdminMetrics metrics;
    /** Open connections, oldest first. */
    private final LinkedHashSet<Channel> open = new LinkedHashSet<>();

    AdminConnectionLimitHandler(int max, AdminMetrics metrics) {
        this.max = max;
        this.metrics = metrics;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        Channel channel = ctx.channel();
        Iterator<Channel> oldest = open.iterator();
        while (open.size() >= max && oldest.hasNext()) {
            Channel evicted = oldest.next();
            oldest.remove();
            metrics.connectionClosed("limit");
            evicted.close();
        }
        open.add(channel);
        channel.closeFuture().addListener(f -> open.remove(channel));
        ctx.fireChannelActive();
    }

    /** Connections this listener holds now (tests, gauges). */
    int open() {
        return open.size();
    }
}
