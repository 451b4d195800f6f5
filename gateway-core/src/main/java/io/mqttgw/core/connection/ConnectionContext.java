package io.mqttgw.core.connection;

import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.identity.CertificateSha256;
import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.core.identity.RevocationPath;
import io.mqttgw.core.mqtt.downlink.DownlinkSession;
import io.mqttgw.core.mqtt.publish.UplinkAcks;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.Subscriptions;
import io.mqttgw.core.spi.UplinkMessage;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.SocketAddress;
import java.security.cert.X509Certificate;

/**
 * Everything the gateway keeps about one connection, in one channel attribute. Event loop only: every field is
 * read and written on the channel's event loop (the object is created in the initializer, before the channel is
 * registered, and published to the loop by registration). Collections are created lazily to keep an idle
 * connection small.
 */
public final class ConnectionContext {
    public static final AttributeKey<ConnectionContext> KEY = AttributeKey.valueOf("mqttgw.connection");

    /** The TLS listener's connection, else the plain TCP one's: a flag, not a reference. */
    private final boolean tls;
    private SocketAddress remoteAddress;
    private String certificateIdentity;
    /** The parsed client certificate, only until CONNECT is decided (authentication needs it); then null. */
    private X509Certificate certificate;
    /** Kept for the connection's life instead of the parsed certificate: its expiry and SHA-256 fingerprint. */
    private long certificateNotAfter;
    /**
     * Also how the identity was proven (non-null: by a verified certificate; no field of its own). Written on
     * the loop before the session is registered and never after, so a thread that found this connection in the
     * registry reads it safely (the registry's map publishes it).
     */
    private byte[] certificateSha256;
    /**
     * The signer and serial of each certificate of the verified path, for a CRL reload to find the connections it
     * revokes; shared with the verifier's cache (one reference per connection). Null without a verifier. Written with
     * the certificate, before registration, and never after: the revocation sweep reads it off the loop.
     */
    private RevocationPath revocation;
    private String clientId;
    private String sessionKey;
    private Route route;
    private boolean sessionOpen;
    private boolean persistent;
    /** Non-null while a persistent session is read from the store: downlink work waiting for it. */
    private java.util.List<Runnable> whileRestoring;
    private boolean handshakeSlot;
    private TopicAcl acl;
    private DisconnectReason closeReason;
    /** Set while a draining node waits for the PUBACKs it owes before it closes the connection. */
    private boolean drainAfterAcks;
    /** Where the drain sends an MQTT 5.0 device once those are written, or null. */
    private String drainReference;
    private UplinkMessage will;
    /** Immutable; replaced on change and shared with the session store (no map per connection). */
    private Subscriptions subscriptions = Subscriptions.NONE;
    private UplinkAcks acks;
    private DownlinkSession downlink;
    private ProtocolCapabilities capabilities = ProtocolCapabilities.MQTT_3_1_1;
    /** MQTT 5.0 uplink topic aliases, index = alias; made when the device first sets one (never for 3.1.1). */
    private String[] topicAliases;
    /**
     * MQTT 5.0 session expiry and will delay; null for 3.1.1 and for a 5.0 connection whose session is not stored and
     * whose will (if any) has no delay.
     */
    private Mqtt5Session mqtt5;
    /*
     * Keepalive, kept by the event loop's KeepAliveWheel: the channel (while watched), the loop-clock time of the last
     * packet, the timeout and the links of the wheel slot the session sits in (-1: in none). A few fields instead of
     * a handler and a scheduled task per connection.
     */
    Channel watchedChannel;
    long lastPacketNanos;
    long keepAliveTimeoutNanos;
    int wheelSlot = -1;
    ConnectionContext wheelPrev;
    ConnectionContext wheelNext;
    /**
     * Non-null only while the channel is unwritable: the slow_consumer close of the stall ({@link WritabilityWatch}).
     */
    ScheduledFuture<?> writeStall;

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

    /** The keepalive timeout the wheel enforces (1.5 times the device's keepalive), set when it first watches. */
    public long keepAliveTimeoutNanos() {
        return keepAliveTimeoutNanos;
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

    public String certificateIdentity() {
        return certificateIdentity;
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
        return certificateSha256 != null;
    }

    /**
     * The verified client certificate's notAfter in epoch milliseconds; meaningful if {@link #hasVerifiedCertificate}.
     */
    public long certificateNotAfterMillis() {
        return certificateNotAfter;
    }

    /** SHA-256 of the verified client certificate's DER encoding (a copy), or null without one. */
    public byte[] certificateSha256() {
        return certificateSha256 == null ? null : certificateSha256.clone();
    }

    /** Set once the TLS handshake verified a client certificate; reads its notAfter and fingerprint from it. */
    public void verifiedCertificate(X509Certificate certificate, String identity) {
        verifiedCertificate(certificate, identity, certificate.getNotAfter().getTime(), sha256(certificate));
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
        this.revocation = revocation;
        this.certificate = certificate;
        this.certificateIdentity = identity;
        this.certificateNotAfter = notAfterMillis;
        this.certificateSha256 = sha256.clone();
    }

    /**
     * The verified certificate's revocation path (its signer and serial, and its intermediates'), or null. Safe to
     * read off the loop for a connection found in the registry (see the field).
     */
    public RevocationPath revocation() {
        return revocation;
    }

    /** How this connection proved its identity: a verified client certificate, or none. */
    public IdentityProof proof() {
        return certificateSha256 == null ? IdentityProof.NO_CERTIFICATE : IdentityProof.CERTIFICATE;
    }

    private static byte[] sha256(X509Certificate certificate) {
        try {
            return CertificateSha256.of(certificate.getEncoded());
        } catch (java.security.cert.CertificateEncodingException e) {
            // a verified certificate has an encoding
            throw new IllegalStateException("cannot fingerprint the client certificate", e);
        }
    }

    public String clientId() {
        return clientId;
    }

    public Route route() {
        return route;
    }

    /**
     * The key of this connection's persistent session in the session store: the client id for a certificate-proven
     * identity, a namespaced one otherwise ({@link IdentityProof#sessionKey}), so a connection without a certificate
     * can never resume or discard the session of a certificate-proven device. Set with the session.
     */
    public String sessionKey() {
        return sessionKey;
    }

    /** True between the accepting CONNACK and the close. */
    public boolean sessionOpen() {
        return sessionOpen;
    }

    /**
     * Marks the session open once CONNECT is accepted; called by the CONNECT phase before registration. The ACL is
     * required, so no path can open a session without one.
     */
    public void openSession(String clientId, Route route, UplinkMessage will, TopicAcl acl, boolean persistent) {
        this.clientId = clientId;
        this.sessionKey = proof().sessionKey(clientId);
        this.route = route;
        this.will = will;
        this.acl = java.util.Objects.requireNonNull(acl, "acl");
        this.sessionOpen = true;
        this.persistent = persistent;
        // CONNECT is decided: the session keeps the certificate's expiry and fingerprint, not the parsed certificate
        this.certificate = null;
        if (persistent) {
            whileRestoring = new java.util.ArrayList<>(0);
        }
    }

    /**
     * Undoes {@link #openSession} when the registration that follows it was refused: the connection is closed as a
     * refused CONNECT, with no session, route or will to clean up.
     */
    public void abandonSession() {
        this.sessionOpen = false;
        this.persistent = false;
        this.will = null;
        this.whileRestoring = null;
    }

    /** The session ends without its will: the route table found the identity held by a device proven the other way. */
    public void forgetWill() {
        this.will = null;
    }

    /**
     * Closes this connection because the route table found its identity held on another node by a device proven the
     * other way; its will is not published (the identity was never this connection's to use). Event loop only.
     */
    public void endForIdentityConflict(Channel channel) {
        forgetWill();
        DeviceDisconnector.close(channel, DisconnectReason.IDENTITY_CONFLICT);
    }

    /** Clean session 0: subscriptions and unacknowledged downlink outlive the connection in the session store. */
    public boolean persistent() {
        return persistent;
    }

    /**
     * Runs {@code work} now, or, while the stored session is still being read, once it has been restored (so a
     * downlink message arriving meanwhile sees the restored subscriptions and queues behind the stored messages).
     * At most {@code max} wait; past that the answer is false and {@code work} is not taken.
     */
    public boolean whenRestored(Runnable work, int max) {
        if (whileRestoring == null) {
            work.run();
        } else if (whileRestoring.size() < max) {
            whileRestoring.add(work);
        } else {
            return false;
        }
        return true;
    }

    /** Whether the stored session is still being read (work given to {@link #whenRestored} waits). Event loop only. */
    public boolean restoring() {
        return whileRestoring != null;
    }

    /** The stored session is in place: runs the work that waited for it. */
    public void restored() {
        java.util.List<Runnable> waiting = whileRestoring;
        whileRestoring = null;
        if (waiting != null) {
            waiting.forEach(Runnable::run);
        }
    }

    /**
     * A newer connection with clean session 1 took the client id over: this connection's session is discarded, not
     * kept (MQTT-3.1.2-6), so its pending downlink ends NOT_CONNECTED and nothing of it is written back.
     */
    public void discardSession() {
        persistent = false;
    }

    /** The topics this session may publish and subscribe to. */
    public TopicAcl acl() {
        return acl;
    }

    /** The will message to publish when the session ends without DISCONNECT, or null. */
    public UplinkMessage will() {
        return will;
    }

    public void discardWill() {
        will = null;
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

    /** Topic filter to what was granted, in subscription order. */
    public Subscriptions subscriptions() {
        return subscriptions;
    }

    /** Replaces the subscriptions (a SUBSCRIBE, UNSUBSCRIBE or restored session made a new immutable set). */
    public void subscriptions(Subscriptions value) {
        this.subscriptions = value;
    }

    /** The subscriptions; never null. */
    public Subscriptions subscriptionsOrEmpty() {
        return subscriptions;
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

    /** A whole packet arrived at {@code nanos} (the event loop's clock): the keepalive period starts again. */
    public void packetRead(long nanos) {
        lastPacketNanos = nanos;
    }

    /** True if reading was paused by uplink back-pressure when the connection ended; clears the pause. */
    public boolean releaseReadingPause() {
        return acks != null && acks.releasePause();
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

    /** The MQTT 5.0 session expiry and will delay of this connection, or null (see the field). */
    public Mqtt5Session mqtt5() {
        return mqtt5;
    }

    /** Set by the CONNECT handler before the session opens. */
    public void mqtt5(Mqtt5Session value) {
        this.mqtt5 = value;
    }

    /**
     * How long the stored session of this connection is to outlive it, for the session store: 3.1.1's "as long as the
     * store keeps sessions", 5.0's interval in force (a 5.0 connection with a stored session always has its
     * {@link Mqtt5Session}).
     */
    public long sessionExpiryMillis() {
        return mqtt5 == null ? io.mqttgw.core.spi.SessionStore.LONGEST : mqtt5.expirySeconds() * 1000L;
    }
}
