package io.mqttgw.core.connection;

import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.core.spi.Route;
import io.mqttgw.core.spi.SessionStore;
import io.mqttgw.core.spi.Subscriptions;
import io.mqttgw.core.spi.UplinkMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The MQTT session a connection carries once CONNECT is accepted: its client id and store key, its route, whether it
 * outlives the connection, the work waiting while a stored session is read back, its ACL, will and subscriptions, and
 * MQTT 5.0 expiry. The base of {@link ConnectionContext} rather than an object of its own, so a connection stays one
 * object (no header and reference per part). Event loop only.
 */
public abstract class SessionState extends KeepAliveEntry {
    private String clientId;
    private String sessionKey;
    private Route route;
    private boolean sessionOpen;
    private boolean persistent;
    /** Non-null while a persistent session is read from the store: downlink work waiting for it. */
    private List<Runnable> whileRestoring;
    private TopicAcl acl;
    private UplinkMessage will;
    /** Immutable; replaced on change and shared with the session store (no map per connection). */
    private Subscriptions subscriptions = Subscriptions.NONE;
    /**
     * MQTT 5.0 session expiry and will delay; null for 3.1.1 and for a 5.0 connection whose session is not stored and
     * whose will (if any) has no delay.
     */
    private Mqtt5Session mqtt5;

    SessionState() {
    }

    public final String clientId() {
        return clientId;
    }

    public final Route route() {
        return route;
    }

    /**
     * The key of this connection's persistent session in the session store: the client id for a certificate-proven
     * identity, a namespaced one otherwise ({@link IdentityProof#sessionKey}), so a connection without a certificate
     * can never resume or discard the session of a certificate-proven device. Set with the session.
     */
    public final String sessionKey() {
        return sessionKey;
    }

    /** True between the accepting CONNACK and the close. */
    public final boolean sessionOpen() {
        return sessionOpen;
    }

    /** Opens the session (see {@link ConnectionContext#openSession}); the ACL is required. */
    final void open(String clientId, IdentityProof proof, Route route, UplinkMessage will, TopicAcl acl,
                    boolean persistent) {
        this.clientId = clientId;
        this.sessionKey = proof.sessionKey(clientId);
        this.route = route;
        this.will = will;
        this.acl = Objects.requireNonNull(acl, "acl");
        this.sessionOpen = true;
        this.persistent = persistent;
        if (persistent) {
            whileRestoring = new ArrayList<>(0);
        }
    }

    /**
     * Undoes {@link ConnectionContext#openSession} when the registration that follows it was refused: the connection
     * is closed as a refused CONNECT, with no session, route or will to clean up.
     */
    public final void abandonSession() {
        this.sessionOpen = false;
        this.persistent = false;
        this.will = null;
        this.whileRestoring = null;
    }

    /** Clean session 0: subscriptions and unacknowledged downlink outlive the connection in the session store. */
    public final boolean persistent() {
        return persistent;
    }

    /**
     * Runs {@code work} now, or, while the stored session is still being read, once it has been restored (so a
     * downlink message arriving meanwhile sees the restored subscriptions and queues behind the stored messages).
     * At most {@code max} wait; past that the answer is false and {@code work} is not taken.
     */
    public final boolean whenRestored(Runnable work, int max) {
        if (whileRestoring == null) {
            work.run();
        } else if (whileRestoring.size() < max) {
            whileRestoring.add(work);
        } else {
            return false;
        }
        return true;
    }

    /** Whether the stored session is still being read (work given to {@link #whenRestored} waits). */
    public final boolean restoring() {
        return whileRestoring != null;
    }

    /** The stored session is in place: runs the work that waited for it. */
    public final void restored() {
        List<Runnable> waiting = whileRestoring;
        whileRestoring = null;
        if (waiting != null) {
            waiting.forEach(Runnable::run);
        }
    }

    /**
     * A newer connection with clean session 1 took the client id over: this connection's session is discarded, not
     * kept (MQTT-3.1.2-6), so its pending downlink ends NOT_CONNECTED and nothing of it is written back.
     */
    public final void discardSession() {
        persistent = false;
    }

    /** The topics this session may publish and subscribe to. */
    public final TopicAcl acl() {
        return acl;
    }

    /** The will message to publish when the session ends without DISCONNECT, or null. */
    public final UplinkMessage will() {
        return will;
    }

    /** The session ends without its will (a DISCONNECT, or an identity proven the other way holds it elsewhere). */
    public final void discardWill() {
        will = null;
    }

    /** Topic filter to what was granted, in subscription order; never null. */
    public final Subscriptions subscriptions() {
        return subscriptions;
    }

    /** Replaces the subscriptions (a SUBSCRIBE, UNSUBSCRIBE or restored session made a new immutable set). */
    public final void subscriptions(Subscriptions value) {
        this.subscriptions = value;
    }

    /** The MQTT 5.0 session expiry and will delay of this connection, or null (see the field). */
    public final Mqtt5Session mqtt5() {
        return mqtt5;
    }

    /** Set by the CONNECT handler before the session opens. */
    public final void mqtt5(Mqtt5Session value) {
        this.mqtt5 = value;
    }

    /**
     * How long the stored session of this connection is to outlive it, for the session store: 3.1.1's "as long as the
     * store keeps sessions", 5.0's interval in force (a 5.0 connection with a stored session always has its
     * {@link Mqtt5Session}).
     */
    public final long sessionExpiryMillis() {
        return mqtt5 == null ? SessionStore.LONGEST : mqtt5.expirySeconds() * 1000L;
    }
}
