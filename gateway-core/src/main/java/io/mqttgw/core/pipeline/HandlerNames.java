package io.mqttgw.core.pipeline;

/** Names of the handlers in a device channel's pipeline, in pipeline order. */
public final class HandlerNames {
    private HandlerNames() {
    }

    /** The device socket: bytes metered and the connection's books opened and closed; first, nearest the socket. */
    public static final String SOCKET = "socket";
    /** PROXY protocol header decoder and reader (listeners behind a balancer); both leave after the header. */
    public static final String PROXY_DECODER = "proxyDecoder";
    public static final String PROXY_HEADER = "proxyHeader";
    /** Notes the first alert a device sends in the clear during the handshake; leaves when the handshake ends. */
    public static final String DEVICE_ALERT = "deviceAlert";
    public static final String TLS = "tls";
    /** Gives the TLS handshake slot back; removes itself once the handshake ends. After TLS: it needs its event. */
    public static final String HANDSHAKE_BUDGET = "handshakeBudget";
    /**
     * Ends the TLS phase (the verified identity into the connection's context, or a counted refusal); leaves with the
     * first flush after the handshake, which it gives room for the session tickets the engine held back.
     */
    public static final String TLS_HANDSHAKE = "tlsHandshake";
    /**
     * Cuts whole packets, refuses those the spec forbids, decodes the others and passes them on only as fast as
     * reading is asked for (a read pause takes effect at the next packet).
     */
    public static final String PACKET_DECODER = "packetDecoder";
    /**
     * Encodes every packet to the device; stops reading while the channel is unwritable and closes a device that stays
     * so (slow_consumer).
     */
    public static final String OUTBOUND = "outbound";
    public static final String INVALID_PACKET = "invalidPacket";
    /** The CONNECT phase; replaced by the session handler below once CONNECT is accepted. */
    public static final String CONNECT = "connect";
    /**
     * Every packet and exception of an established session, dispatched by packet type; takes over from
     * {@link #INVALID_PACKET} and {@link #ERRORS}, which leave the pipeline when it arrives.
     */
    public static final String SESSION = "session";
    /** The last handler until CONNECT is accepted: every exception ends here. */
    public static final String ERRORS = "errors";
}
