package io.mqttgw.core.tls;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.security.cert.Certificate;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Set;
import javax.net.ssl.SSLEngine;
import org.slf4j.LoggerFactory;

/**
 * Trims what Netty's OpenSSL engine keeps for a connection's whole life although an established connection never
 * reads it again (each item is a measurable share of an idle device's heap).
 * <ul>
 *   <li>The peer certificate: at handshake end the engine copies the device's certificate out of BoringSSL into the
 *   session (a lazy wrapper around its DER, about 550 B), whether or not anyone asks for it. The gateway reads what
 *   it needs once, at that moment, and keeps its identity, expiry and fingerprint in the {@code ConnectionContext};
 *   the session's two certificate fields are then set as a session without a peer certificate has them.</li>
 *   <li>The engine's own copies of the context's settings: a {@code LinkedHashSet} of enabled protocols (about
 *   270 B with its map, table and entries) and a clone of the key-exchange groups, both consulted only while a
 *   handshake is configured. After the handshake they point to one unmodifiable copy shared by every engine with
 *   the same settings; nothing changes an established device's protocols (TLS 1.3 has no renegotiation, and the
 *   gateway never calls {@code setEnabledProtocols} after the handshake).</li>
 *   <li>The session's protocol and key-exchange group names, a new string each per session: interned.</li>
 * </ul>
 * Netty offers no switch for any of these, so this writes the private fields, under the engine's lock that guards them.
 * When a Netty version changes a field this turns that part off with one warning (the cost returns, nothing
 * breaks), and {@code EngineTrimIT} fails so an upgrade notices. Event loop only.
 */
final class EngineTrim {
    private static final String SESSION_CLASS =
            "io.netty.handler.ssl.ReferenceCountedOpenSslEngine$DefaultOpenSslSession";
    private static final String ENGINE_CLASS = "io.netty.handler.ssl.ReferenceCountedOpenSslEngine";
    private static final Certificate[] NONE = new Certificate[0];
    private static final String EXTENDED_CLASS = "io.netty.handler.ssl.ExtendedOpenSslSession";
    private static final Field PEER_CERTS;
    /** Netty wraps the session it hands out (to offer {@code ExtendedSSLSession}); the certificates are inside. */
    private static final Field WRAPPED;
    private static final Field X509_PEER_CERTS;
    private static final Object X509_NONE;
    /** The session's protocol and key-exchange group names: a new String each per session, the same few values. */
    private static final Field SESSION_PROTOCOL;
    private static final Field SESSION_GROUP;
    private static final Field ENABLED_PROTOCOLS;
    private static final Field GROUPS;

    /** The shared copies: the last settings seen (one listener context, so one value in practice). */
    private static volatile Set<String> sharedProtocols = Set.of();
    private static volatile String[] sharedGroups = new String[0];

    static {
        Field peer = null;
        Field x509 = null;
        Field wrapped = null;
        Object x509None = null;
        try {
            Class<?> session = type(SESSION_CLASS);
            peer = session.getDeclaredField("peerCerts");
            x509 = session.getDeclaredField("x509PeerCerts");
            peer.setAccessible(true);
            x509.setAccessible(true);
            wrapped = type(EXTENDED_CLASS).getDeclaredField("wrapped");
            wrapped.setAccessible(true);
            x509None = Array.newInstance(x509.getType().getComponentType(), 0);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            changedShape("session", "device certificates stay in each TLS session (about 550 B per connection)", e);
            peer = null;
            x509 = null;
            wrapped = null;
        }
        PEER_CERTS = peer;
        X509_PEER_CERTS = x509;
        WRAPPED = wrapped;
        X509_NONE = x509None;
        ENABLED_PROTOCOLS = engineField(ENGINE_CLASS, "enabledProtocols", Set.class);
        GROUPS = engineField(ENGINE_CLASS, "groups", String[].class);
        SESSION_PROTOCOL = engineField(SESSION_CLASS, "protocol", String.class);
        SESSION_GROUP = engineField(SESSION_CLASS, "namedGroup", String.class);
    }

    private EngineTrim() {
    }

    private static Field engineField(String className, String name, Class<?> type) {
        try {
            Field f = type(className).getDeclaredField(name);
            if (f.getType() != type) {
                throw new NoSuchFieldException(name + " is a " + f.getType().getName());
            }
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            changedShape("engine", "each engine keeps its own " + name, e);
            return null;
        }
    }

    /**
     * Loaded, never initialised: initialising the OpenSSL engine's classes calls into netty-tcnative, whose native
     * library is loaded only when the OpenSSL engine is in use ({@code listener.tls.engine: jdk} never loads it).
     */
    private static Class<?> type(String name) throws ClassNotFoundException {
        return Class.forName(name, false, EngineTrim.class.getClassLoader());
    }

    private static void changedShape(String what, String cost, Throwable e) {
        LoggerFactory.getLogger(EngineTrim.class).warn("Netty's OpenSSL {} changed shape ({}); {}", what,
                e.toString(), cost);
    }

    /** Whether this Netty version's session and engine can be trimmed (the parts that cannot are skipped). */
    static boolean available() {
        return PEER_CERTS != null && ENABLED_PROTOCOLS != null && GROUPS != null && SESSION_PROTOCOL != null
                && SESSION_GROUP != null;
    }

    /** Trims {@code engine} once its handshake succeeded; true when the peer certificate was removed. */
    static boolean trim(SSLEngine engine) {
        if (engine == null || !trimmable(engine)) {
            return false;
        }
        synchronized (engine) {
            shareSettings(engine);
            return trimSession(engine);
        }
    }

    private static boolean trimmable(SSLEngine engine) {
        Field any = ENABLED_PROTOCOLS != null ? ENABLED_PROTOCOLS : GROUPS;
        return any == null ? PEER_CERTS != null : any.getDeclaringClass().isInstance(engine);
    }

    private static boolean trimSession(SSLEngine engine) {
        if (PEER_CERTS == null) {
            return false;
        }
        try {
            Object session = engine.getSession();
            if (WRAPPED.getDeclaringClass().isInstance(session)) {
                session = WRAPPED.get(session);
            }
            if (!PEER_CERTS.getDeclaringClass().isInstance(session)) {
                return false;
            }
            PEER_CERTS.set(session, NONE);
            X509_PEER_CERTS.set(session, X509_NONE);
            intern(SESSION_PROTOCOL, session);
            intern(SESSION_GROUP, session);
            return true;
        } catch (IllegalAccessException | RuntimeException e) {
            return false;
        }
    }

    private static void intern(Field field, Object session) throws IllegalAccessException {
        if (field != null) {
            String value = (String) field.get(session);
            if (value != null) {
                field.set(session, value.intern());
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static void shareSettings(SSLEngine engine) {
        try {
            if (ENABLED_PROTOCOLS != null) {
                Set<String> own = (Set<String>) ENABLED_PROTOCOLS.get(engine);
                Set<String> shared = sharedProtocols;
                if (own != shared) {
                    if (!sameInOrder(own, shared)) {
                        shared = Collections.unmodifiableSet(new LinkedHashSet<>(own));
                        sharedProtocols = shared;
                    }
                    ENABLED_PROTOCOLS.set(engine, shared);
                }
            }
            if (GROUPS != null) {
                String[] own = (String[]) GROUPS.get(engine);
                String[] shared = sharedGroups;
                if (own != null && own != shared) {
                    if (!Arrays.equals(own, shared)) {
                        shared = own;
                        sharedGroups = shared;
                    }
                    GROUPS.set(engine, shared);
                }
            }
        } catch (IllegalAccessException | RuntimeException e) {
            // the engine keeps its own copies: memory, not behaviour
        }
    }

    /** Equal elements in equal order ({@code getEnabledProtocols} reports them in the set's order). */
    private static boolean sameInOrder(Set<String> a, Set<String> b) {
        if (a.size() != b.size()) {
            return false;
        }
        Iterator<String> i = b.iterator();
        for (String s : a) {
            if (!s.equals(i.next())) {
                return false;
            }
        }
        return true;
    }
}
