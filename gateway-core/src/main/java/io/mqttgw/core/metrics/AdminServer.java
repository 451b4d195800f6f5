package io.mqttgw.core.metrics;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.mqttgw.core.spi.DownlinkMessage;
import io.mqttgw.core.spi.DownlinkTarget;
import io.mqttgw.core.spi.HealthStatus;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The admin HTTP listener: {@code GET /metrics} (Prometheus text) and {@code GET /health} (UP, DEGRADED or DOWN
 * with a JSON body naming each check; 503 only for DOWN). Runs on its own single thread, so scrapes never take time
 * from device event loops and stay answerable when those are busy.
 */
public final class AdminServer implements AutoCloseable {
    private final EventLoopGroup group;
    private final Channel channel;

    public AdminServer(String bind, int port, PrometheusMeterRegistry registry, DownlinkTarget downlink,
                       BooleanSupplier accepting, List<HealthCheck> checks) throws InterruptedException {
        group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("admin-http", true),
                NioIoHandler.newFactory());
        try {
            channel = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast("http", new HttpServerCodec())
                                    .addLast("aggregator", new HttpObjectAggregator(16 * 1024))
                                    .addLast("admin", new Endpoints(registry, downlink, accepting, checks));
                        }
                    })
                    .bind(bind, port).sync().channel();
        } catch (InterruptedException | RuntimeException e) {
            group.shutdownGracefully();
            throw e;
        }
    }

    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        channel.close().awaitUninterruptibly();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).awaitUninterruptibly();
    }

    /** Serves the two paths; one instance per admin connection. */
    private static final class Endpoints extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final PrometheusMeterRegistry registry;
        private final DownlinkTarget downlink;
        private final BooleanSupplier accepting;
        private final List<HealthCheck> checks;

        Endpoints(PrometheusMeterRegistry registry, DownlinkTarget downlink, BooleanSupplier accepting,
                  List<HealthCheck> checks) {
            this.registry = registry;
            this.downlink = downlink;
            this.accepting = accepting;
            this.checks = checks;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            QueryStringDecoder query = new QueryStringDecoder(request.uri());
            String path = query.path();
            if (downlink != null && HttpMethod.POST.equals(request.method()) && path.startsWith("/downlink")) {
                downlink(ctx, request, query);
                return;
            }
            FullHttpResponse response;
            if (!HttpMethod.GET.equals(request.method())) {
                response = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "only GET\n", "text/plain");
            } else if ("/metrics".equals(path)) {
                response = text(HttpResponseStatus.OK, registry.scrape(), "text/plain; version=0.0.4; charset=utf-8");
            } else if ("/health".equals(path)) {
                response = health();
            } else {
                response = text(HttpResponseStatus.NOT_FOUND, "try /metrics or /health\n", "text/plain");
            }
            respond(ctx, HttpUtil.isKeepAlive(request), response);
        }

        private static void respond(ChannelHandlerContext ctx, boolean keepAlive, FullHttpResponse response) {
            HttpUtil.setKeepAlive(response, keepAlive);
            var future = ctx.writeAndFlush(response);
            if (!keepAlive) {
                future.addListener(ChannelFutureListener.CLOSE);
            }
        }

        /**
         * {@code POST /downlink?client=ID&topic=T&qos=1[&retain=true]} sends the body to one device and answers with
         * the outcome once known (for QoS 1 after the device's PUBACK); {@code POST /downlink/broadcast?topic=T&qos=1}
         * sends it to every device of this node subscribed to the topic and answers with how many.
         */
        private void downlink(ChannelHandlerContext ctx, FullHttpRequest request, QueryStringDecoder query) {
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            String topic = param(query, "topic");
            String client = param(query, "client");
            int qos;
            try {
                qos = Integer.parseInt(param(query, "qos") == null ? "1" : param(query, "qos"));
            } catch (NumberFormatException e) {
                qos = -1;
            }
            boolean broadcast = "/downlink/broadcast".equals(query.path());
            if (topic == null || topic.isEmpty() || qos < 0 || qos > 2 || (!broadcast && client == null)) {
                respond(ctx, keepAlive, text(HttpResponseStatus.BAD_REQUEST,
                        "{\"error\":\"want topic, qos 0-2 and (for /downlink) client\"}\n", "application/json"));
                return;
            }
            byte[] payload = new byte[request.content().readableBytes()];
            request.content().getBytes(request.content().readerIndex(), payload);
            DownlinkMessage message = new DownlinkMessage(client, topic, qos, "true".equals(param(query, "retain")),
                    payload);
            if (broadcast) {
                downlink.broadcast(message).whenComplete((n, e) -> respond(ctx, keepAlive, e != null
                        ? text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "{\"error\":\"broadcast failed\"}\n",
                        "application/json")
                        : text(HttpResponseStatus.OK, "{\"handedTo\":" + n + "}\n", "application/json")));
            } else {
                downlink.deliver(message).whenComplete((o, e) -> respond(ctx, keepAlive, e != null
                        ? text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "{\"error\":\"delivery failed\"}\n",
                        "application/json")
                        : text(HttpResponseStatus.OK, "{\"outcome\":\"" + o.name().toLowerCase(java.util.Locale.ROOT)
                        + "\"}\n", "application/json")));
            }
        }

        private static String param(QueryStringDecoder query, String name) {
            List<String> values = query.parameters().get(name);
            return values == null || values.isEmpty() ? null : values.get(0);
        }

        /**
         * 503 (DOWN) only when the node should get no new devices, so a balancer's check moves them elsewhere;
         * a degraded component (Kafka unreachable) answers 200 with DEGRADED, because every node shares that
         * dependency and taking all of them out would only disconnect the fleet.
         */
        private FullHttpResponse health() {
            boolean accepts = accepting.getAsBoolean();
            boolean allUp = true;
            StringBuilder b = new StringBuilder("{\"checks\":{\"listeners\":{\"up\":").append(accepts)
                    .append(",\"detail\":\"").append(accepts ? "accepting devices" : "not accepting devices")
                    .append("\"}");
            for (HealthCheck check : checks) {
                HealthStatus s = check.status().get();
                allUp &= s.up();
                b.append(",\"").append(check.name()).append("\":{\"up\":").append(s.up()).append(",\"detail\":\"")
                        .append(s.detail().replace("\\", "\\\\").replace("\"", "\\\"")).append("\"}");
            }
            String status = !accepts ? "DOWN" : allUp ? "UP" : "DEGRADED";
            b.append("},\"status\":\"").append(status).append("\"}\n");
            return text(accepts ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, b.toString(),
                    "application/json");
        }

        private static FullHttpResponse text(HttpResponseStatus status, String body, String type) {
            ByteBuf content = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, type)
                    .set(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes())
                    .set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
            return r;
        }
    }
}
