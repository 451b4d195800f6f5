package io.mqttgw.core.pipeline;

import io.mqttgw.core.admission.HandshakeBudgetHandler;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.codec.InvalidPacketHandler;
import io.mqttgw.core.codec.PacketDecoding;
import io.mqttgw.core.connection.KeepAliveWheel;
import io.mqttgw.core.mqtt.connect.MqttConnectHandler;
import io.mqttgw.core.codec.MqttPacketDecoder;
import io.mqttgw.core.connection.SessionPhase;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.mqttgw.core.mqtt.subscribe.SubscriptionHandler;
import io.mqttgw.core.mqtt.publish.UplinkPublishHandler;
import io.mqttgw.core.connection.WritabilityWatch;
import io.mqttgw.core.tls.CertificateIdentities;
import io.mqttgw.core.tls.SslContextStore;
import io.mqttgw.core.tls.DeviceAlertHandler;
import io.mqttgw.core.tls.TlsHandshakeHandler;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.mqttgw.core.proxy.ProxyHeaderHandler;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.handler.ssl.SslHandler;

/**
 * Assembles a device channel's pipeline, the one place that does. With an {@link SslContextStore} it is the TLS
 * listener's (TLS then MQTT), without one the plain TCP listener's. The CONNECT phase comes first; once CONNECT is
 * accepted {@link #install} puts the one handler of an established session in place of the CONNECT phase, the
 * invalid-packet handler and the error handler (it does their work from then on): every pipeline entry costs each idle
 * connection a context object. Stateless handlers are shared singletons, and jobs share an entry where
 * they sit at the same place: the device socket's ({@link DeviceSocketHandler}: bytes metered, the connection's books
 * opened and closed) and the outbound packets' ({@link OutboundPacketHandler}: encoding, the writability watch whose
 * stall timer lives in the {@link ConnectionContext}). Per channel there are only the TLS engine, the packet decoder
 * (cuts whole packets, refuses those the spec forbids, decodes the rest one at a time and stops passing them on while
 * reading is paused, so a pause takes effect at the next packet; paused packets wait as bytes) and the CONNECT phase
 * (until it ends); keepalive is the event loop's {@link KeepAliveWheel}.
 */
public final class DeviceChannelInitializer extends ChannelInitializer<Channel> implements SessionPhase {
    private final String listener;
    private final SessionServices services;
    private final SslContextStore tls;
    private final DeviceSocketHandler socket;
    private final OutboundPacketHandler outbound;
    private final TlsHandshakeHandler tlsHandshake;
    private final EstablishedSessionHandler session;
    private final PacketDecoding packetDecoding;

    private final HandshakeBudgetHandler handshakeBudget;
    private final boolean proxyProtocol;

    /**
     * @param tls             the listener's TLS contexts, or null for plain TCP
     * @param handshakeBudget gives admitted TLS connections' handshake slots back; null for plain TCP
     * @param proxyProtocol   whether a PROXY header comes first on every connection
     */
    public DeviceChannelInitializer(String listener, SessionServices services, SslContextStore tls,
                                    HandshakeBudgetHandler handshakeBudget, boolean proxyProtocol) {
        this.proxyProtocol = proxyProtocol;
        this.listener = listener;
        this.services = services;
        this.tls = tls;
        this.handshakeBudget = handshakeBudget;
        this.socket = new DeviceSocketHandler(services);
        this.outbound = new OutboundPacketHandler(new WritabilityWatch(services.metrics(),
                services.config().mqtt().writeStallTimeout().toMillis(),
                        services.config().mqtt().maxPendingOutbound()));
        this.tlsHandshake = tls == null ? null : new TlsHandshakeHandler(
                new CertificateIdentities(services.config().identity().source()), tls::verifier, services.metrics(),
                services.events());
        this.packetDecoding = new PacketDecoding(services.config().mqtt().maxPacketSize(),
                services.config().mqtt().maxClientIdLength());
        this.session = new EstablishedSessionHandler(new UplinkPublishHandler(services.sink(), services.metrics(),
                services.config().mqtt().maxInflightUplink(), services.config().acl().disconnectOnViolation(),
                services.config().mqtt().topicLimits(), services.config().mqtt().topicAliasMaximum()),
                new SubscriptionHandler(services), services.config().session().expiry().toSeconds());
    }

    @Override
    protected void initChannel(Channel ch) {
        ConnectionContext context = new ConnectionContext(listener);
        context.remoteAddress(ch.remoteAddress());
        ch.attr(ConnectionContext.KEY).set(context);
        ChannelPipeline p = ch.pipeline();
        p.addLast(HandlerNames.SOCKET, socket);
        if (proxyProtocol) {
            var proxy = services.config().proxyProtocol();
            p.addLast(HandlerNames.PROXY_DECODER, new HAProxyMessageDecoder());
            p.addLast(HandlerNames.PROXY_HEADER, new ProxyHeaderHandler(proxy.trustedSources(),
                    proxy.headerTimeout().toMillis()));
        }
        if (tls != null) {
            // the admission gate gave every TLS connection it let through a handshake slot
            context.holdHandshakeSlot(true);
            SslHandler ssl = tls.current().newHandler(ch.alloc());
            ssl.setHandshakeTimeoutMillis(services.config().tls().handshakeTimeout().toMillis());
            p.addLast(HandlerNames.DEVICE_ALERT, new DeviceAlertHandler());
            p.addLast(HandlerNames.TLS, ssl);
            // after the TLS handler: its handshake-completion event travels only towards the tail
            p.addLast(HandlerNames.HANDSHAKE_BUDGET, handshakeBudget);
            p.addLast(HandlerNames.TLS_HANDSHAKE, tlsHandshake);
        }
        p.addLast(HandlerNames.PACKET_DECODER, new MqttPacketDecoder(packetDecoding));
        p.addLast(HandlerNames.OUTBOUND, outbound);
        p.addLast(HandlerNames.INVALID_PACKET, InvalidPacketHandler.INSTANCE);
        p.addLast(HandlerNames.CONNECT, new MqttConnectHandler(services, this, HandlerNames.CONNECT));
        p.addLast(HandlerNames.ERRORS, ChannelErrorHandler.INSTANCE);
    }

    @Override
    public void install(ChannelPipeline p, String afterName, int keepAliveSeconds) {
        p.addAfter(afterName, HandlerNames.SESSION, session);
        // the loop's keepalive wheel, not a handler: a session costs a few fields there
        KeepAliveWheel.watch(p.channel(), keepAliveSeconds);
        // the session handler rejects invalid packets and handles exceptions itself from now on
        p.remove(HandlerNames.INVALID_PACKET);
        p.remove(HandlerNames.ERRORS);
    }
}
