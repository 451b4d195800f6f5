package io.mqttgw.core.connection;

import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.identity.CertificateSha256;
import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.core.identity.RevocationPath;
import io.mqttgw.core.mqtt.downlink.DownlinkSession;
import io.mqttgw.core.mqtt.publish.UplinkAcks;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.UplinkMessage;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.SocketAddress;
import java.security.cert.X509Certificate;

/**
 * Everything the gateway keeps about one connection, in one channel attribute: here what belongs to the connection
 * (listener, address, admission, the verified certificate, why it closes, the protocol and the state its flows make
 * on first use), in {@link SessionState} the MQTT session it carries, in {@link KeepAliveEntry} its place in the
 * keepalive wheel. One object for all of it: an idle connection pays one header. Event loop only: every field is read
 * and written on the channel's event loop (the object is created in the initializer, before the channel is
 * registered, and published to the loop by registration); the certificate is also read by the threads the
 * registry hands the connection to ({@link #revocation}).
 */
public final class ConnectionContext extends SessionState {
    public static final AttributeKey<ConnectionContext> KEY = AttributeKey.valueOf("mqttgw.connection");

    /** The TLS listener's connection, else the plain TCP one's: a flag, not a reference. */
    private final boolean tls;
    private SocketAddress remoteAddress;
    /** The parsed client certificate, only until CONNECT is decided (authentication needs it); then null. */
    private X509Certificate certificate;
    /**
     * Also how the identity was proven (non-null: by a verified certificate; no field of its own). Written on the
     * loop before the session is registered and never after, so a thread that found this connection in the registry
     * reads it safely (the registry's map publishes it).
     */
    private ClientCertificate clientCertificate;
    private boolean handshakeSlot;
    private DisconnectReason closeReason;
    /** Set while a draining node waits for the PUBACKs it owes before it closes the connection. */
    private boolean drainAfterAcks;
    /** Where the drain sends an MQTT 5.0 device once those are written, or null. */
    private String drainReference;
    private UplinkAcks acks;
    private DownlinkSession downlink;
    private ProtocolCapabilities capabilities = ProtocolCapabilities.MQTT_3_1_1;
    /** MQTT 5.0 uplink topic aliases, index = alias; made when the device first sets one (never for 3.1.1). */
    private String[] topicAliases;
    /** Non-null only while the channel is unwritable: the slow_consumer close of the stall. */
    private ScheduledFuture<?> writeStall;

    /** @param listener {@code tcp} or {@code tls} */
    public ConnectionContext(String listener) {
        if (!"tls".equals(listener) && !"tcp".equals(listener)) {
            throw new IllegalArgumentException("listener must be tcp or tls: " + listener);
        }
        this.tls = "tls".equals(listener);
    }

    public static ConnectionContext of(Channel channel) {
        return channel.attr(KEY).get();
    }

    /** Whether this connection holds one of the node's TLS handshake slots (admission control). */
    public boolean holdsHandshakeSlot() {
        return handshakeSlot;
    }

    public void holdHandshakeSlot(boolean value) {
        this.handshakeSlot = value;
    }

    /** The device's address: the peer's, or the one a trusted proxy's PROXY header names. */
    public SocketAddress remoteAddress() {
        return remoteAddress;
    }

    public void remoteAddress(SocketAddress address) {
        this.remoteAddress = address;
    }

    /** {@code tcp} or {@code tls}. */
    public String listener() {
        return tls ? "tls" : "tcp";
    }

    /** The identity the verified client certificate names, or null without one. */
    public String certificateIdentity() {
        return clientCertificate == null ? null : clientCertificate.identity();
    }

    /**
     * The verified client certificate while CONNECT is being decided, else null: an open session keeps only
     * {@link #certificateNotAfterMillis()} and {@link #certificateSha256()}, not the parsed certificate (about 3 KB of
     * heap per connection).
     */
    public X509Certificate certificate() {
        return certificate;
    }

    /** Whether the TLS handshake verified a client certificate (true also after the parsed one was dropped). */
    public boolean hasVerifiedCertificate() {
        return clientCertificate != null;
    }

    /**
     * The verified client certificate's notAfter in epoch milliseconds; meaningful if {@link #hasVerifiedCertificate}.
     */
    public long certificateNotAfterMillis() {
        return clientCertificate == null ? 0 : clientCertificate.notAfterMillis();
    }

    /** SHA-256 of the verified client certificate's DER encoding (a new array), or null without one. */
    public byte[] certificateSha256() {
        return clientCertificate == null ? null : clientCertificate.sha256();
    }

    /** Set once the TLS handshake verified a client certificate; reads its notAfter and fingerprint from it. */
    public void verifiedCertificate(X509Certificate certificate, String identity) {
        verifiedCertificate(certificate, identity, certificate.getNotAfter().getTime(),
                CertificateSha256.of(certificate));
    }

    /**
     * Set once the TLS handshake verified a client certificate, with its notAfter and the SHA-256 of its DER already
     * known (the certificate may be a lazily parsed one that nothing here should make parse).
     */
    public void verifiedCertificate(X509Certificate certificate, String identity, long notAfterMillis,
                                    byte[] sha256) {
        verifiedCertificate(certificate, identity, notAfterMillis, sha256, null);
    }

    /** As {@link #verifiedCertificate(X509Certificate, String, long, byte[])}, with the verifier's revocation path. */
    public void verifiedCertificate(X509Certificate certificate, String identity, long notAfterMillis,
                                    byte[] sha256, RevocationPath revocation) {
        this.certificate = certificate;
        this.clientCertificate = new ClientCertificate(identity, notAfterMillis, sha256, revocation);
    }

    /**
     * The verified certificate's revocation path (its signer and serial, and its intermediates', for a CRL reload to
     * find the connections it revokes), or null. Safe to read off the loop for a connection found in the registry.
     */
    public RevocationPath revocation() {
        return clientCertificate == null ? null : clientCertificate.revocation();
    }

    /** How this connection proved its identity: a verified client certificate, or none. */
    public IdentityProof proof() {
        return clientCertificate == null ? IdentityProof.NO_CERTIFICATE : IdentityProof.CERTIFICATE;
    }

    /**
     * Marks the session open once CONNECT is accepted; called by the CONNECT phase before registration. The ACL is
     * required, so no path can open a session without one.
     */
    public void openSession(String clientId, Route route, UplinkMessage will, TopicAcl acl, boolean persistent) {
        open(clientId, proof(), route, will, acl, persistent);
        // CONNECT is decided: the session keeps the certificate's expiry and fingerprint, not the parsed certificate
        this.certificate = null;
    }

    /**
     * Closes this connection because the route table found its identity held on another node by a device proven the
     * other way; its will is not published (the identity was never this connection's to use). Event loop only.
     */
    public void endForIdentityConflict(Channel channel) {
        discardWill();
        DeviceDisconnector.close(channel, DisconnectReason.IDENTITY_CONFLICT);
    }

    public DisconnectReason closeReason() {
        return closeReason;
    }

    /** Records why the connection is closing; the first reason wins. */
    public void closeReason(DisconnectReason reason) {
        if (closeReason == null) {
            closeReason = reason;
        }
    }

    /** Whether a drain waits for this connection's owed PUBACKs before closing it. */
    public boolean drainAfterAcks() {
        return drainAfterAcks;
    }

    public String drainReference() {
        return drainReference;
    }

    /** Marks the connection as drained once the PUBACKs it owes are written; {@code serverReference} may be null. */
    public void drainAfterAcks(String serverReference) {
        drainAfterAcks = true;
        drainReference = serverReference;
    }

    /** The session's downlink state, or null before the first downlink message. */
    public DownlinkSession downlinkOrNull() {
        return downlink;
    }

    /** Set once, with the first downlink message ({@code DownlinkSession.of}). */
    public void downlink(DownlinkSession value) {
        this.downlink = value;
    }

    /**
     * The connection ended: pending downlink completes NOT_CONNECTED, or QUEUED where a persistent session keeps it.
     */
    public void closeDownlink() {
        if (downlink != null) {
            downlink.close();
        }
    }

    /** True if reading was paused by uplink back-pressure when the connection ended; clears the pause. */
    public boolean releaseReadingPause() {
        return acks != null && acks.releasePause();
    }

    /** The running slow_consumer close of a stall, or null ({@link WritabilityWatch}). */
    ScheduledFuture<?> writeStall() {
        return writeStall;
    }

    void writeStall(ScheduledFuture<?> stall) {
        this.writeStall = stall;
    }

    /** Whether uplink back-pressure holds reading paused (its window is full), so nobody else may resume it. */
    boolean uplinkPaused() {
        return acks != null && acks.readingPaused();
    }

    /** The uplink acknowledgement state, or null before the first QoS 1/2 PUBLISH (read by {@code ClientDetails}). */
    public UplinkAcks acksOrNull() {
        return acks;
    }

    public UplinkAcks acks(int maxInflight) {
        if (acks == null) {
            acks = new UplinkAcks(maxInflight);
        }
        return acks;
    }

    /** The MQTT 5.0 uplink topic alias table (index = alias), or null before the device first sets one. */
    public String[] topicAliases() {
        return topicAliases;
    }

    /** Set once, when the device first sets an alias ({@code TopicAliases}). */
    public void topicAliases(String[] table) {
        this.topicAliases = table;
    }

    /** The connection's protocol and its device's announced limits; 3.1.1 until CONNECT says otherwise. */
    public ProtocolCapabilities capabilities() {
        return capabilities;
    }

    /** Set by the CONNECT handler once, before CONNACK. */
    public void capabilities(ProtocolCapabilities value) {
        this.capabilities = value;
    }
}
