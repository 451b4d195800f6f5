package io.mqttgw.core.config;

import static io.mqttgw.core.config.CoreConfigKeys.*;

import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.topic.TopicLimits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The validated, immutable configuration of one node. Built once at startup; everything that reads it
 * holds this snapshot, so no lock guards configuration on a hot path.
 */
public record GatewayConfig(
        String nodeId,
        Server server,
        TlsListener tls,
        TcpListener tcp,
        ProxyProtocol proxyProtocol,
        Mqtt mqtt,
        Identity identity,
        Auth auth,
        Acl acl,
        String routesProvider,
        String uplinkSink,
        String downlinkSource,
        Downlink downlink,
        Session session,
        Admin admin,
        Admission admission,
        Overload overload,
        Shutdown shutdown,
        int lifecycleLogRate,
        ConfigValues values) {

    public record Server(String transport, int ioThreads, int backlog, boolean reusePort, String allocator,
                         int writeBufferLowWaterMark, int writeBufferHighWaterMark) {
        /** I/O threads to start: the configured count, or one per core. */
        public int effectiveIoThreads() {
            return ioThreads > 0 ? ioThreads : Runtime.getRuntime().availableProcessors();
        }
    }

    public record TlsListener(boolean enabled, String bind, int port, Path certFile, Path keyFile, Path caFile,
                              Path crlFile, String clientAuth, List<String> protocols, List<String> groups,
                              String engine, Duration handshakeTimeout,
                              int sessionCacheSize, Duration sessionTimeout, Duration reloadInterval,
                              boolean proxyProtocol, String crlMode, boolean sendCaNames, String verifier,
                              Duration ticketKeyRotation, String ticketKeySource, int crlDisconnectRate) {
        /** Whether an issuer without a current CRL blocks its devices ({@code listener.tls.crl-mode: hard}). */
        public boolean crlHard() {
            return "hard".equals(crlMode);
        }
    }

    public record TcpListener(boolean enabled, String bind, int port, boolean proxyProtocol) {
    }

    /** Who may send PROXY headers, and how long a connection may take to send one. */
    public record ProxyProtocol(TrustedSources trustedSources, Duration headerTimeout) {
    }

    /**
     * MQTT limits. {@code topicAliasMaximum} and {@code maxKeepAliveSeconds} (0: no cap) are MQTT 5.0's: announced in
     * CONNACK.
     */
    public record Mqtt(Duration connectTimeout, int maxPacketSize, int maxClientIdLength, int maxInflightUplink,
                       int maxSubscriptions, int maxQos, TopicLimits topicLimits, Duration writeStallTimeout,
                       long maxPendingOutbound, int topicAliasMaximum, int maxKeepAliveSeconds) {
    }

    /** How the device identity is read from the certificate and tied to the MQTT client id. */
    public record Identity(String source, boolean clientIdMustMatch, Duration expiryWarning) {
    }

    public record Auth(String provider, Duration timeout, boolean allowWithoutCertificate) {
    }

    /** The default topic ACL and what a PUBLISH outside it does. */
    public record Acl(TopicAcl defaults, boolean disconnectOnViolation) {
    }

    /** The admin plane: the read-only listener, and the operations endpoints (off unless a credential is set). */
    public record Admin(boolean enabled, String bind, int port, Operations operations, Duration idleTimeout,
                        int maxConnections) {
    }

    /**
     * Operations endpoints ({@code /downlink}, ...). On when a token file or operator mutual TLS is configured; every
     * configured credential is then required. {@code port} is -1 when operations share the admin listener.
     */
    public record Operations(Path tokenFile, String bind, int port, Path tlsCertFile, Path tlsKeyFile, Path tlsCaFile,
                             int maxPayload) {
        public boolean enabled() {
            return tokenFile != null || tlsCaFile != null;
        }

        /** Whether operations have their own listener, apart from the read-only endpoints. */
        public boolean separateListener() {
            return port >= 0;
        }

        public boolean mutualTls() {
            return tlsCaFile != null;
        }
    }

    /**
     * How a node leaves.
     *
     * @param serverReference MQTT 5.0 Server Reference told to draining devices, or null for none
     */
    public record Shutdown(int drainRatePerSecond, String serverReference, Duration readyGrace, Duration timeout) {
    }

    /** Downlink delivery: window and queue per device, retransmission, broadcast pace. */
    public record Downlink(int maxInflight, int maxQueued, Duration retryInterval, int maxRetries, int broadcastRate) {
    }

    /** Persistent sessions and retained messages: where they are kept, and their bounds. */
    public record Session(String provider, Duration expiry, Duration openTimeout, int maxPending, int maxRetained,
                          int maxSessions) {
    }

    /**
     * New connections a second and TLS handshakes at once, each 0 for no limit or {@link ValueParsers#AUTO} for a
     * value derived at startup from the I/O threads and {@code handshakeCost} (see
     * {@code io.mqttgw.core.admission.AdmissionBudget}); the turn-away delay; and what a known device's and a
     * resumed session's handshake cost, which admission gives back once a handshake ends as one of them.
     */
    public record Admission(int connectionRate, int maxHandshakes, Duration handshakeCost, Duration rejectDelay,
                            Duration knownDeviceHandshakeCost, Duration resumedHandshakeCost) {
        /** The shipped costs of the cheaper kinds (for callers that set only the full handshake's). */
        public Admission(int connectionRate, int maxHandshakes, Duration handshakeCost, Duration rejectDelay) {
            this(connectionRate, maxHandshakes, handshakeCost, rejectDelay,
                    ADMISSION_KNOWN_DEVICE_HANDSHAKE_COST.parser().apply(
                            ADMISSION_KNOWN_DEVICE_HANDSHAKE_COST.defaultValue()),
                    ADMISSION_RESUMED_HANDSHAKE_COST.parser().apply(ADMISSION_RESUMED_HANDSHAKE_COST.defaultValue()));
        }
    }

    /**
     * The overload monitor: signal thresholds with hysteresis, the least time between level changes, whether lag
     * and handshake rate count as overload ({@code lagIsOverload}) or only make the node busy, and which reactions
     * are on.
     */
    public record Overload(boolean enabled, Duration interval, Duration recoveryHold, Duration minHold,
                           boolean lagIsOverload, List<OverloadThreshold> thresholds, boolean closeListeners,
                           boolean refuseConnects, boolean pauseHandshakes) {
        /** The event-loop lag threshold (overload.event-loop-lag), zero when that signal is off. */
        public Duration eventLoopLag() {
            return thresholds.stream().filter(t -> t.signal().equals(OverloadThreshold.EVENT_LOOP_LAG) && t.enter() > 0)
                    .map(t -> Duration.ofNanos(Math.round(t.enter() * 1e9))).findFirst().orElse(Duration.ZERO);
        }
    }

    /** Builds the snapshot and checks rules that span keys; each failure names the keys and the fix. */
    public static GatewayConfig from(ConfigValues v) {
        return GatewayConfigBuilder.build(v);
    }
}
