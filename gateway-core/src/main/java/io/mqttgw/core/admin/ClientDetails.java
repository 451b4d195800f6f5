package io.mqttgw.core.admin;

import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.ProtocolCapabilities;
import io.mqttgw.core.mqtt.downlink.DownlinkSession;
import io.mqttgw.core.mqtt.publish.UplinkAcks;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.Subscription;
import io.netty.channel.Channel;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;

/**
 * What the operator API shows of one open session: a copy taken on the channel's event loop (the only thread that
 * may read {@link ConnectionContext}), so the admin thread never reads mutable handler state. Nothing here is kept
 * per connection: the copy exists for one request.
 *
 * @param protocol                MQTT protocol name and version
 * @param keepAliveSeconds        the keepalive the device asked for; 0 when it asked for none
 * @param certificateNotAfterMillis the verified client certificate's expiry, or -1 without a certificate
 * @param certificateSha256       SHA-256 of the certificate's DER encoding in hex, or null (subject and serial are not
 *                                kept after CONNECT: the parsed certificate is dropped to save memory)
 * @param persistentSession       clean session 0: the session outlives the connection
 * @param uplinkInflight          QoS 1/2 PUBLISH from the device not yet acknowledged (sink pending)
 * @param uplinkAwaitingRelease   QoS 2 PUBLISH acknowledged with PUBREC, waiting for the device's PUBREL
 * @param downlinkInflight        QoS 1/2 PUBLISH to the device not yet acknowledged by it
 * @param downlinkQueued          downlink messages waiting for the in-flight window
 */
public record ClientDetails(String clientId, String nodeId, String listener, String remoteAddress,
                            long connectedAtMillis, long epoch, String proof, String protocol, int keepAliveSeconds,
                            String certificateIdentity, long certificateNotAfterMillis, String certificateSha256,
                            boolean persistentSession, Map<String, Subscription> subscriptions, int uplinkInflight,
                            int uplinkAwaitingRelease, int downlinkInflight, int downlinkQueued) {

    /**
     * Copies {@code channel}'s session on its event loop; completes with null when the channel has no open session
     * (closed meanwhile, or still in CONNECT). Any thread; the caller bounds the wait.
     */
    public static CompletableFuture<ClientDetails> read(Channel channel) {
        CompletableFuture<ClientDetails> result = new CompletableFuture<>();
        try {
            channel.eventLoop().execute(() -> {
                try {
                    result.complete(copy(channel));
                } catch (RuntimeException e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            // the loop is shutting down: the session is going away
            result.complete(null);
        }
        return result;
    }

    private static ClientDetails copy(Channel channel) {
        ConnectionContext c = ConnectionContext.of(channel);
        if (c == null || !c.sessionOpen() || !channel.isActive()) {
            return null;
        }
        Route route = c.route();
        UplinkAcks acks = c.acksOrNull();
        DownlinkSession downlink = c.downlinkOrNull();
        byte[] sha = c.certificateSha256();
        Map<String, Subscription> subscriptions = c.subscriptions();
        return new ClientDetails(c.clientId(), route.nodeId(), c.listener(),
                c.remoteAddress() == null ? route.remoteAddress() : String.valueOf(c.remoteAddress()),
                route.connectedAtMillis(), route.epoch(), route.proof().name().toLowerCase(Locale.ROOT),
                protocolName(c.capabilities()),
                // the wheel keeps 1.5 times the keepalive (MQTT-3.1.2-24)
                (int) Math.round(c.keepAliveTimeoutNanos() / 1.5e9),
                c.certificateIdentity(), c.hasVerifiedCertificate() ? c.certificateNotAfterMillis() : -1,
                sha == null ? null : HexFormat.of().formatHex(sha), c.persistent(),
                subscriptions.isEmpty() ? Map.of() : new LinkedHashMap<>(subscriptions),
                acks == null ? 0 : acks.size(), acks == null ? 0 : acks.awaitingRelease(),
                downlink == null ? 0 : downlink.inflightCount(), downlink == null ? 0 : downlink.queued());
    }

    private static String protocolName(ProtocolCapabilities capabilities) {
        return switch (capabilities.version()) {
            case MQTT_5 -> "MQTT 5.0";
            case MQTT_3_1 -> "MQTT 3.1";
            default -> "MQTT 3.1.1";
        };
    }
}
