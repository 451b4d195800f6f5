package io.mqttgw.core.config;

import static io.mqttgw.core.config.ValueParsers.bool;
import static io.mqttgw.core.config.ValueParsers.duration;
import static io.mqttgw.core.config.ValueParsers.intRange;
import static io.mqttgw.core.config.ValueParsers.intRangeOrAuto;
import static io.mqttgw.core.config.ValueParsers.list;
import static io.mqttgw.core.config.ValueParsers.nonEmpty;
import static io.mqttgw.core.config.ValueParsers.oneOf;
import static io.mqttgw.core.config.ValueParsers.serverReference;
import static io.mqttgw.core.config.ValueParsers.size;
import static io.mqttgw.core.config.ValueParsers.string;
import static io.mqttgw.core.config.ValueParsers.subsetOf;

import java.time.Duration;
import java.util.List;

/** Every key gateway-core reads. Provider modules declare their own through {@code ConfigKeyProvider}. */
public final class CoreConfigKeys {
    private CoreConfigKeys() {
    }

    private static final int PORT_MAX = 65535;

    public static final ConfigKey<String> NODE_ID = new ConfigKey<>("node.id", "",
            "any text; empty means the host name",
            "Name of this gateway node in routes, Kafka headers and logs.", string());

    public static final ConfigKey<String> SERVER_TRANSPORT = new ConfigKey<>("server.transport", "auto",
            "auto, epoll or nio", "Socket transport; auto uses epoll where available and logs the NIO fallback.",
            oneOf("auto", "epoll", "nio"));
    public static final ConfigKey<Integer> SERVER_IO_THREADS = new ConfigKey<>("server.io-threads", "0",
            "0 to 1024; 0 means one per core", "Event-loop threads that do all per-connection work.",
            intRange(0, 1024));
    public static final ConfigKey<Integer> SERVER_BACKLOG = new ConfigKey<>("server.backlog", "4096",
            "1 to 1048576", "Listen backlog of each listening socket (one per I/O thread with server.reuse-port; the "
                    + "kernel caps it at net.core.somaxconn).",
            intRange(1, 1 << 20));
    public static final ConfigKey<Boolean> SERVER_REUSE_PORT = new ConfigKey<>("server.reuse-port", "true",
            "true or false", "With epoll, each I/O thread listens on its own socket (SO_REUSEPORT) and accepts for "
                    + "itself, so a new connection never passes between threads; false: one socket per listener and "
                    + "an accept thread. Another process of the same user that binds the same port with SO_REUSEPORT "
                    + "shares its connections. No effect with NIO.", bool());
    public static final ConfigKey<String> SERVER_ALLOCATOR = new ConfigKey<>("server.allocator", "pooled",
            "pooled or adaptive", "Netty buffer allocator.", oneOf("pooled", "adaptive"));
    public static final ConfigKey<Long> SERVER_WRITE_LOW = new ConfigKey<>("server.write-buffer-low-water-mark",
            "32KiB", "1 to 16MiB", "A channel becomes writable again below this many queued outbound bytes.",
            size(1, 16L << 20));
    public static final ConfigKey<Long> SERVER_WRITE_HIGH = new ConfigKey<>("server.write-buffer-high-water-mark",
            "64KiB", "1 to 16MiB and above the low-water mark",
            "A channel turns unwritable above this many queued outbound bytes.", size(1, 16L << 20));

    public static final ConfigKey<Boolean> TLS_ENABLED = new ConfigKey<>("listener.tls.enabled", "true",
            "true or false", "Serve MQTT over TLS.", bool());
    public static final ConfigKey<String> TLS_BIND = new ConfigKey<>("listener.tls.bind", "0.0.0.0",
            "an IP address or host name", "Address the TLS listener binds.", nonEmpty());
    public static final ConfigKey<Integer> TLS_PORT = new ConfigKey<>("listener.tls.port", "8883",
            "0 to 65535; 0 picks a free port", "Port of the TLS listener.", intRange(0, PORT_MAX));
    public static final ConfigKey<String> TLS_CERT_FILE = new ConfigKey<>("listener.tls.cert-file", null,
            "path to a PEM certificate chain (server certificate first)",
            "Server certificate chain; required when the TLS listener is enabled.", nonEmpty());
    public static final ConfigKey<String> TLS_KEY_FILE = new ConfigKey<>("listener.tls.key-file", null,
            "path to an unencrypted PEM private key (ECDSA or RSA; PKCS#8, SEC1 or PKCS#1)",
            "Server private key; required when the TLS listener is enabled.", nonEmpty());
    public static final ConfigKey<String> TLS_CA_FILE = new ConfigKey<>("listener.tls.ca-file", null,
            "path to a PEM bundle of CA certificates",
            "CAs that device certificates must chain to; required unless client-auth is none.", nonEmpty());
    public static final ConfigKey<String> TLS_CRL_FILE = new ConfigKey<>("listener.tls.crl-file", null,
            "path to a PEM or DER file of CRLs from the device CAs",
            "Revoked device certificates are refused at the handshake; reloaded with the other TLS files. Whether an "
                    + "issuer without a current CRL here blocks its devices is listener.tls.crl-mode.", nonEmpty());
    public static final ConfigKey<String> TLS_CRL_MODE = new ConfigKey<>("listener.tls.crl-mode", "soft",
            "soft or hard; hard needs listener.tls.crl-file",
            "soft: an issuer with no CRL, or one past its next-update, does not block its devices; hard: it does "
                    + "(handshake refused, reason crl_stale, logged and shown in /health).", oneOf("soft", "hard"));
    public static final ConfigKey<Integer> TLS_CRL_DISCONNECT_RATE = new ConfigKey<>(
            "listener.tls.crl-disconnect-rate", "500", "1 to 100000 per second",
            "When a reloaded listener.tls.crl-file revokes the certificates of connected devices, they are "
                    + "disconnected (MQTT 5.0: DISCONNECT 0x87; reason certificate_revoked) at most this many a "
                    + "second, "
                    + "so that a large CRL does not send the whole fleet reconnecting at once.",
            intRange(1, 100_000));
    public static final ConfigKey<Boolean> TLS_SEND_CA_NAMES = new ConfigKey<>("listener.tls.send-ca-names", "true",
            "true or false", "List the trusted device CAs in the TLS CertificateRequest, so a device holding several "
                    + "certificates can pick the right one; false hides the CA names.", bool());
    public static final ConfigKey<String> TLS_VERIFIER = new ConfigKey<>("listener.tls.verifier", "lean",
            "lean or pkix", "How device certificates are verified: lean checks the chain against the configured CAs "
                    + "with cached CA keys and caches recently verified certificates (CRLs checked every time); "
                    + "pkix is the JDK's generic PKIX validation on every handshake.", oneOf("lean", "pkix"));
    public static final ConfigKey<String> TLS_CLIENT_AUTH = new ConfigKey<>("listener.tls.client-auth", "require",
            "require, optional or none", "Whether devices must present a client certificate.",
            oneOf("require", "optional", "none"));
    public static final ConfigKey<List<String>> TLS_PROTOCOLS = new ConfigKey<>("listener.tls.protocols",
            "TLSv1.3,TLSv1.2", "a comma-separated subset of TLSv1.3 and TLSv1.2", "TLS versions offered.",
            subsetOf("TLSv1.3", "TLSv1.2"));
    /** The key-exchange groups BoringSSL knows by these names (the listener's and the bench's devices' choices). */
    public static final List<String> TLS_GROUP_NAMES = List.of("X25519MLKEM768", "x25519", "secp256r1", "secp384r1",
            "secp521r1");
    public static final ConfigKey<List<String>> TLS_GROUPS = new ConfigKey<>("listener.tls.groups",
            "X25519MLKEM768,x25519,secp256r1,secp384r1,secp521r1",
            "a comma-separated subset of X25519MLKEM768, x25519, secp256r1, secp384r1 and secp521r1",
            "Key-exchange groups accepted (openssl engine; the jdk engine follows jdk.tls.namedGroups). The device's "
                    + "order decides among them: X25519MLKEM768 (post-quantum hybrid) is used only with a device that "
                    + "offers it first, and costs more CPU per handshake than x25519 (BENCHMARKS.md).",
            subsetOf(TLS_GROUP_NAMES.toArray(String[]::new)));
    public static final ConfigKey<String> TLS_ENGINE = new ConfigKey<>("listener.tls.engine", "openssl",
            "openssl or jdk", "TLS engine; openssl is BoringSSL from netty-tcnative (falls back to jdk, logged).",
            oneOf("openssl", "jdk"));
    public static final ConfigKey<Duration> TLS_HANDSHAKE_TIMEOUT = new ConfigKey<>(
            "listener.tls.handshake-timeout", "10s", "100ms to 5m",
            "A TLS handshake not finished in this time closes the connection.",
            duration(Duration.ofMillis(100), Duration.ofMinutes(5)));
    public static final ConfigKey<Integer> TLS_SESSION_CACHE_SIZE = new ConfigKey<>(
            "listener.tls.session-cache-size", "20000", "0 to 10000000; 0 means the engine's default",
            "Server-side TLS session cache entries (session IDs; TLS 1.3 uses tickets).", intRange(0, 10_000_000));
    public static final ConfigKey<Duration> TLS_SESSION_TIMEOUT = new ConfigKey<>(
            "listener.tls.session-timeout", "1h", "1s to 24h",
            "How long a TLS session may be resumed, by session ID or ticket.",
            duration(Duration.ofSeconds(1), Duration.ofHours(24)));
    public static final ConfigKey<Duration> TLS_TICKET_KEY_ROTATION = new ConfigKey<>(
            "listener.tls.ticket-key-rotation", "1h", "0s (off) or 1s to 7d",
            "How long one session-ticket key encrypts new TLS tickets before the next takes over; the previous "
                    + "ceil(listener.tls.session-timeout / this) keys still decrypt. Keys are in memory only. 0s: the "
                    + "engine's own keys (this process only, lost on restart).",
            s -> {
                Duration d = duration(Duration.ZERO, Duration.ofDays(7)).apply(s);
                if (!d.isZero() && d.toMillis() < 1000) {
                    throw new IllegalArgumentException("out of range");
                }
                return d;
            });
    public static final ConfigKey<String> TLS_TICKET_KEY_SOURCE = new ConfigKey<>(
            "listener.tls.ticket-key-source", "auto", "auto, local or redis",
            "Where session-ticket keys come from. auto: shared through Redis when routes.provider is redis (a device "
                    + "resumes on any node), else local; local: this node's memory only.",
            oneOf("auto", "local", "redis"));
    public static final ConfigKey<Duration> TLS_RELOAD_INTERVAL = new ConfigKey<>(
            "listener.tls.reload-interval", "30s", "0s (off) or 100ms to 1h",
            "How often the certificate, key and CA files are checked for changes; new handshakes use new files.",
            s -> {
                Duration d = duration(Duration.ZERO, Duration.ofHours(1)).apply(s);
                if (!d.isZero() && d.toMillis() < 100) {
                    throw new IllegalArgumentException("out of range");
                }
                return d;
            });

    public static final ConfigKey<Boolean> TLS_PROXY_PROTOCOL = new ConfigKey<>("listener.tls.proxy-protocol",
            "false", "true or false", "Require a PROXY protocol header (v1 or v2, before TLS) on every connection of "
                    + "the TLS listener, from proxy-protocol.trusted-sources only.", bool());
    public static final ConfigKey<Boolean> TCP_PROXY_PROTOCOL = new ConfigKey<>("listener.tcp.proxy-protocol",
            "false", "true or false", "Require a PROXY protocol header on every connection of the TCP listener.",
            bool());
    public static final ConfigKey<List<String>> PROXY_TRUSTED = new ConfigKey<>("proxy-protocol.trusted-sources",
            "127.0.0.1/32,::1/128", "comma-separated IP addresses or CIDR ranges",
            "Balancers allowed to send a PROXY header; connections from elsewhere are closed (untrusted_proxy).", s -> {
                List<String> v = list().apply(s);
                io.mqttgw.core.config.TrustedSources.parse(v);
                return v;
            });
    public static final ConfigKey<Duration> PROXY_HEADER_TIMEOUT = new ConfigKey<>("proxy-protocol.header-timeout",
            "5s", "100ms to 1m", "A connection that sends no PROXY header in this time is closed.",
            duration(Duration.ofMillis(100), Duration.ofMinutes(1)));

    public static final ConfigKey<Boolean> TCP_ENABLED = new ConfigKey<>("listener.tcp.enabled", "false",
            "true or false", "Serve plain MQTT over TCP (TLS terminated at the balancer, or benchmarks).", bool());
    public static final ConfigKey<String> TCP_BIND = new ConfigKey<>("listener.tcp.bind", "0.0.0.0",
            "an IP address or host name", "Address the plain TCP listener binds.", nonEmpty());
    public static final ConfigKey<Integer> TCP_PORT = new ConfigKey<>("listener.tcp.port", "1883",
            "0 to 65535; 0 picks a free port", "Port of the plain TCP listener.", intRange(0, PORT_MAX));

    public static final ConfigKey<Duration> MQTT_CONNECT_TIMEOUT = new ConfigKey<>("mqtt.connect-timeout", "10s",
            "100ms to 5m", "A connection that has not sent CONNECT in this time (from TCP accept) is closed.",
            duration(Duration.ofMillis(100), Duration.ofMinutes(5)));
    public static final ConfigKey<Long> MQTT_MAX_PACKET_SIZE = new ConfigKey<>("mqtt.max-packet-size", "256KiB",
            "16 to 268435455 bytes", "Larger packets close the connection (reason packet_too_large).",
            size(16, 268_435_455));
    public static final ConfigKey<Integer> MQTT_MAX_CLIENT_ID_LENGTH = new ConfigKey<>(
            "mqtt.max-client-id-length", "128", "1 to 65535",
            "Longer client ids are refused with CONNACK identifier rejected.", intRange(1, 65535));
    public static final ConfigKey<Integer> MQTT_MAX_INFLIGHT_UPLINK = new ConfigKey<>(
            "mqtt.max-inflight-uplink", "32", "1 to 65535",
            "QoS 1/2 PUBLISHes of one connection awaiting the sink; at this count the gateway stops reading it.",
            intRange(1, 65535));
    public static final ConfigKey<Integer> MQTT_MAX_SUBSCRIPTIONS = new ConfigKey<>("mqtt.max-subscriptions", "16",
            "0 to 10000", "Topic filters one connection may hold; more are refused in SUBACK.", intRange(0, 10_000));
    public static final ConfigKey<Integer> MQTT_MAX_QOS = new ConfigKey<>("mqtt.max-qos", "1",
            "0, 1 or 2", "Highest QoS granted in SUBACK (downlink). QoS 2 is exactly once within a connection; "
                    + "a persistent session resends an unfinished QoS 2 message after a reconnect (at least once).",
            intRange(0, 2));
    public static final ConfigKey<Integer> MQTT_MAX_TOPIC_LENGTH = new ConfigKey<>("mqtt.max-topic-length", "1024",
            "1 to 65535 (UTF-8 bytes)", "Longest topic name or filter: a longer PUBLISH or will topic closes the "
                    + "connection (reason topic_limit), a longer SUBSCRIBE filter gets 0x80 in SUBACK, a longer "
                    + "downlink topic is refused (outcome invalid_topic).", intRange(1, 65535));
    public static final ConfigKey<Integer> MQTT_MAX_TOPIC_LEVELS = new ConfigKey<>("mqtt.max-topic-levels", "16",
            "1 to 1024", "Most levels ('/'-separated parts) in a topic name or filter; past it the same as "
                    + "mqtt.max-topic-length.", intRange(1, 1024));
    public static final ConfigKey<Duration> MQTT_WRITE_STALL_TIMEOUT = new ConfigKey<>("mqtt.write-stall-timeout",
            "30s", "100ms to 1h", "A connection whose outbound buffer stays above server.write-buffer-high-water-mark "
                    + "(the device does not read) this long is closed (reason slow_consumer). Meanwhile it is not "
                    + "read, QoS 1/2 downlink waits in its queue and QoS 0 downlink is dropped (outcome not_writable).",
            duration(Duration.ofMillis(100), Duration.ofHours(1)));
    public static final ConfigKey<Long> MQTT_MAX_PENDING_OUTBOUND = new ConfigKey<>("mqtt.max-pending-outbound",
            "1MiB", "above server.write-buffer-high-water-mark, up to 256MiB",
            "Outbound bytes one connection may have queued once it is unwritable; a write past it closes the "
                    + "connection at once (reason slow_consumer).", size(1, 256L << 20));

    public static final ConfigKey<Integer> MQTT_TOPIC_ALIAS_MAXIMUM = new ConfigKey<>("mqtt.topic-alias-maximum",
            "16", "0 to 65535",
                    "MQTT 5.0: topic aliases a device may set up on uplink, announced in CONNACK (topic alias "
                    + "maximum); 0 turns uplink topic aliases off.", intRange(0, 65535));
    public static final ConfigKey<Duration> MQTT_MAX_KEEP_ALIVE = new ConfigKey<>("mqtt.max-keep-alive", "0s",
            "0s (no cap) or 1s to 65535s", "MQTT 5.0: the longest keepalive a device may use; a 5.0 device asking for "
                    + "more (or for none) is given this one in CONNACK (server keep alive). 3.1.1 devices keep theirs "
                    + "(3.1.1 cannot tell them).", duration(Duration.ZERO, Duration.ofSeconds(65535)));

    public static final ConfigKey<String> IDENTITY_SOURCE = new ConfigKey<>("identity.source", "cn",
            "cn, san-uri or san-dns", "Where the device identity is read from in the client certificate.",
            oneOf("cn", "san-uri", "san-dns"));
    public static final ConfigKey<String> IDENTITY_CLIENT_ID_POLICY = new ConfigKey<>(
            "identity.client-id-policy", "must-match", "must-match or use-identity",
            "must-match: the MQTT client id must equal the certificate identity; use-identity: the identity "
                    + "replaces the client id.", oneOf("must-match", "use-identity"));

    public static final ConfigKey<Duration> IDENTITY_EXPIRY_WARNING = new ConfigKey<>("identity.expiry-warning",
            "30d", "1h to 3650d", "Connected devices whose certificate expires within this are counted in "
                    + "mqttgw_device_certificates_expiring.", duration(Duration.ofHours(1), Duration.ofDays(3650)));

    public static final ConfigKey<String> AUTH_PROVIDER = new ConfigKey<>("auth.provider", "certificate",
            "the name of an Authenticator provider on the class path",
            "Who decides whether a device may connect.", nonEmpty());
    public static final ConfigKey<Duration> AUTH_TIMEOUT = new ConfigKey<>("auth.timeout", "5s", "10ms to 2m",
            "An authentication not answered in this time is refused with CONNACK server unavailable.",
            duration(Duration.ofMillis(10), Duration.ofMinutes(2)));
    public static final ConfigKey<Boolean> AUTH_ALLOW_WITHOUT_CERTIFICATE = new ConfigKey<>(
            "auth.certificate.allow-without-certificate", "false", "true or false",
            "certificate provider: allow devices that present no certificate (plain TCP listener, benchmarks).",
            bool());

    public static final ConfigKey<List<String>> ACL_PUBLISH = new ConfigKey<>("acl.publish",
            "devices/{client-id}/#", "comma-separated MQTT topic filters; a level {client-id} is the device's own id",
            "Topics a device may publish to, unless its authentication answer names its own (acl.publish).",
            aclFilters());
    public static final ConfigKey<List<String>> ACL_SUBSCRIBE = new ConfigKey<>("acl.subscribe",
            "devices/{client-id}/#", "comma-separated MQTT topic filters; a level {client-id} is the device's own id",
            "Topic filters a device may subscribe within, unless its authentication answer names its own; others get "
                    + "SUBACK 0x80.", aclFilters());
    public static final ConfigKey<String> ACL_ON_VIOLATION = new ConfigKey<>("acl.on-violation", "disconnect",
            "disconnect or ignore", "A PUBLISH outside the ACL closes the connection (disconnect, reason "
                    + "not_authorized) or is acknowledged and dropped (ignore); both are counted.",
            oneOf("disconnect", "ignore"));

    private static java.util.function.Function<String, List<String>> aclFilters() {
        return s -> {
            List<String> filters = list().apply(s);
            for (String f : filters) {
                if (!io.mqttgw.core.topic.TopicFilters.isValidFilter(f.replace("{client-id}", "x"))) {
                    throw new IllegalArgumentException("'" + f + "' is not a valid topic filter");
                }
            }
            return filters;
        };
    }

    public static final ConfigKey<String> ROUTES_PROVIDER = new ConfigKey<>("routes.provider", "memory",
            "the name of a RouteStore provider on the class path", "Where device routes are kept.", nonEmpty());

    public static final ConfigKey<String> UPLINK_SINK = new ConfigKey<>("uplink.sink", "file",
            "the name of an UplinkSink provider on the class path (file, discard, ...)",
            "Where device PUBLISHes go.", nonEmpty());
    public static final ConfigKey<String> UPLINK_FILE_DIR = new ConfigKey<>("uplink.file.dir", "data/uplink",
            "a directory path", "file sink: directory of the JSON-lines files.", nonEmpty());
    public static final ConfigKey<Long> UPLINK_FILE_MAX_SIZE = new ConfigKey<>("uplink.file.max-file-size",
            "100MiB", "1KiB to 64GiB", "file sink: size at which the current file is rolled.",
            size(1024, 64L << 30));
    public static final ConfigKey<Integer> UPLINK_FILE_MAX_FILES = new ConfigKey<>("uplink.file.max-files", "10",
            "1 to 100000", "file sink: rolled files kept; older ones are deleted.", intRange(1, 100_000));
    public static final ConfigKey<Integer> UPLINK_FILE_QUEUE_CAPACITY = new ConfigKey<>(
            "uplink.file.queue-capacity", "65536", "16 to 16777216",
            "file sink: messages waiting for the writer; when full, new messages are refused (QoS 1 not "
                    + "acknowledged, QoS 0 dropped and counted).", intRange(16, 1 << 24));

    public static final ConfigKey<String> DOWNLINK_SOURCE = new ConfigKey<>("downlink.source", "none",
            "the name of a DownlinkSource provider on the class path", "Where downlink commands come from.",
            nonEmpty());

    public static final ConfigKey<Integer> DOWNLINK_MAX_INFLIGHT = new ConfigKey<>("downlink.max-inflight", "16",
            "1 to 65535", "QoS 1/2 downlink messages sent to one device and not yet acknowledged; more wait in its "
                    + "queue.", intRange(1, 65535));
    public static final ConfigKey<Integer> DOWNLINK_MAX_QUEUED = new ConfigKey<>("downlink.max-queued", "100",
            "0 to 100000", "Downlink messages waiting for a device's window; past it a new one is refused "
                    + "(outcome QUEUE_FULL).", intRange(0, 100_000));
    public static final ConfigKey<Duration> DOWNLINK_RETRY_INTERVAL = new ConfigKey<>("downlink.retry-interval", "3s",
            "100ms to 10m", "An unacknowledged QoS 1/2 downlink message is sent again (DUP) after this long.",
            duration(Duration.ofMillis(100), Duration.ofMinutes(10)));
    public static final ConfigKey<Integer> DOWNLINK_MAX_RETRIES = new ConfigKey<>("downlink.max-retries", "5",
            "0 to 1000", "Retransmissions before a downlink message is given up (outcome EXPIRED).",
            intRange(0, 1000));
    public static final ConfigKey<Integer> DOWNLINK_BROADCAST_RATE = new ConfigKey<>("downlink.broadcast-rate",
            "50000", "1 to 10000000", "Devices a broadcast is handed to per second, spread over the event loops.",
            intRange(1, 10_000_000));

    public static final ConfigKey<String> SESSION_PROVIDER = new ConfigKey<>("session.provider", "memory",
            "the name of a SessionStore provider on the class path: memory (this node only) or redis "
                    + "(gateway-routing, shared by the nodes)",
            "Where persistent sessions (clean session 0) and retained downlink messages are kept.", nonEmpty());
    public static final ConfigKey<Duration> SESSION_EXPIRY = new ConfigKey<>("session.expiry", "7d",
            "1m to 3650d", "A persistent session (subscriptions and pending messages) is deleted this long after its "
                    + "device disconnected.", duration(Duration.ofMinutes(1), Duration.ofDays(3650)));
    public static final ConfigKey<Duration> SESSION_OPEN_TIMEOUT = new ConfigKey<>("session.open-timeout", "3s",
            "100ms to 1m", "Longest wait at CONNECT (clean session 0) for the stored session; past it the device is "
                    + "accepted with session present 0 and it is counted.",
            duration(Duration.ofMillis(100), Duration.ofMinutes(1)));
    public static final ConfigKey<Integer> SESSION_MAX_PENDING = new ConfigKey<>("session.max-pending", "100",
            "1 to 100000", "QoS 1/2 downlink messages kept per persistent session until acknowledged; past it a new "
                    + "one is refused (outcome QUEUE_FULL).", intRange(1, 100_000));
    public static final ConfigKey<Integer> SESSION_MAX_RETAINED = new ConfigKey<>("session.max-retained", "10000",
            "1 to 10000000", "Retained downlink messages kept (one per topic); past it a new topic's message is "
                    + "refused and counted.", intRange(1, 10_000_000));
    public static final ConfigKey<Integer> SESSION_MAX_SESSIONS = new ConfigKey<>("session.max-sessions", "1000000",
            "1 to 100000000", "Persistent sessions of departed devices a node keeps (memory store: all it holds; redis "
                    + "store: those whose device last disconnected from this node). Past it the session whose device "
                    + "disconnected longest ago is deleted (mqttgw_sessions_evicted_total); sessions of connected "
                    + "devices are never evicted.", intRange(1, 100_000_000));

    public static final ConfigKey<Boolean> ADMIN_ENABLED = new ConfigKey<>("admin.enabled", "true",
            "true or false", "Serve the read-only endpoints /metrics, /health/live and /health/ready (and /health, "
                    + "the same as /health/ready) over HTTP.", bool());
    public static final ConfigKey<String> ADMIN_BIND = new ConfigKey<>("admin.bind", "127.0.0.1",
            "an IP address or host name", "Address of the admin HTTP listener; set it to an address the balancer "
                    + "reaches to let it check /health/ready.", nonEmpty());
    public static final ConfigKey<Integer> ADMIN_PORT = new ConfigKey<>("admin.port", "9090",
            "0 to 65535; 0 picks a free port", "Port of the admin HTTP listener.", intRange(0, PORT_MAX));
    public static final ConfigKey<Duration> ADMIN_IDLE_TIMEOUT = new ConfigKey<>("admin.idle-timeout", "30s",
            "1s to 1h", "An admin connection (read-only or operations listener) with no byte read or written for this "
                    + "long is closed, so idle or slow sockets cannot hold the listener; not while the node still owes "
                    + "the answer to a request read whole (an operation forwarded to another node waits up to its own "
                    + "bound).",
            duration(Duration.ofSeconds(1), Duration.ofHours(1)));
    public static final ConfigKey<Integer> ADMIN_MAX_CONNECTIONS = new ConfigKey<>("admin.max-connections", "64",
            "1 to 10000", "Open connections each admin listener keeps; a new one past it closes the listener's oldest "
                    + "connection (counted in mqttgw_admin_connections_closed_total{reason=\"limit\"}), so a flood of "
                    + "sockets cannot lock out the balancer's health check.", intRange(1, 10_000));
    public static final ConfigKey<String> ADMIN_OPERATIONS_TOKEN_FILE = new ConfigKey<>(
            "admin.operations.token-file", null, "path to a file of id:token lines (tokens of 32 to 512 characters)",
            "Turns on the operations endpoints (/downlink, /downlink/broadcast), each call needing "
                    + "'Authorization: Bearer <token>' with a token of this file; re-read when it changes.",
            nonEmpty());
    public static final ConfigKey<String> ADMIN_OPERATIONS_BIND = new ConfigKey<>("admin.operations.bind",
            "127.0.0.1", "an IP address or host name",
            "Address of the separate operations listener (used only when admin.operations.port is set).", nonEmpty());
    public static final ConfigKey<Integer> ADMIN_OPERATIONS_PORT = new ConfigKey<>("admin.operations.port", null,
            "0 to 65535; 0 picks a free port; unset serves operations on admin.port",
            "Port of a separate operations listener; when set, the admin.port listener serves only the read-only "
                    + "endpoints.", intRange(0, PORT_MAX));
    public static final ConfigKey<String> ADMIN_OPERATIONS_TLS_CERT_FILE = new ConfigKey<>(
            "admin.operations.tls.cert-file", null, "path to a PEM certificate chain (server certificate first)",
            "Server certificate of the operations listener; with key-file and ca-file it serves HTTPS and requires "
                    + "an operator client certificate (needs admin.operations.port).", nonEmpty());
    public static final ConfigKey<String> ADMIN_OPERATIONS_TLS_KEY_FILE = new ConfigKey<>(
            "admin.operations.tls.key-file", null, "path to an unencrypted PEM PKCS#8 private key",
            "Private key of the operations listener's certificate.", nonEmpty());
    public static final ConfigKey<String> ADMIN_OPERATIONS_TLS_CA_FILE = new ConfigKey<>(
            "admin.operations.tls.ca-file", null, "path to a PEM bundle of CA certificates (not the device CA)",
            "CAs that operator client certificates must chain to; the certificate subject names the operator in the "
                    + "event log.", nonEmpty());
    public static final ConfigKey<Long> ADMIN_OPERATIONS_MAX_PAYLOAD = new ConfigKey<>(
            "admin.operations.max-payload", "16KiB", "0 to 16MiB",
            "Largest downlink payload an operation takes; a larger body is refused with 413.", size(0, 16L << 20));

    public static final ConfigKey<Integer> ADMISSION_CONNECTION_RATE = new ConfigKey<>("admission.connection-rate",
            "auto", "auto, or 0 (no limit) to 1000000", "Full handshakes' worth of new connections a second the node "
                    + "takes off the listen backlog (a token bucket of CPU time); the rest wait in the backlog. Each "
                    + "connection is charged a full handshake and, when its handshake ends as a known device or a "
                    + "resumed session, gets back the difference to admission.known-device-handshake-cost or "
                    + "admission.resumed-handshake-cost. auto: three quarters of the I/O threads' time, i.e. I/O "
                    + "threads x 0.75 / admission.handshake-cost.",
            intRangeOrAuto(0, 1_000_000));
    public static final ConfigKey<Integer> ADMISSION_MAX_HANDSHAKES = new ConfigKey<>("admission.max-handshakes",
            "auto", "auto, or 0 (no limit) to 1000000", "TLS handshakes in progress at once (the crypto budget); "
                    + "while it is spent, new connections wait in the listen backlog. auto: per I/O thread, "
                    + "overload.event-loop-lag / (4 x admission.handshake-cost), so a loop's queue of admitted "
                    + "handshakes stays under a quarter of the lag threshold.", intRangeOrAuto(0, 1_000_000));
    public static final ConfigKey<Duration> ADMISSION_HANDSHAKE_COST = new ConfigKey<>("admission.handshake-cost",
            "1200us", "1us to 1s", "CPU time of one full TLS handshake with CONNECT on one core (measured for ECDSA "
                    + "P-256 mutual TLS with x25519: 1.0-1.2 ms with the JIT cold, 0.7 ms warm, BENCHMARKS.md; an RSA "
                    + "server key or devices asking for X25519MLKEM768 cost more); the auto values of "
                    + "admission.connection-rate and admission.max-handshakes are derived from it.",
            duration(Duration.ofNanos(1000), Duration.ofSeconds(1)));
    public static final ConfigKey<Duration> ADMISSION_KNOWN_DEVICE_HANDSHAKE_COST = new ConfigKey<>(
            "admission.known-device-handshake-cost", "600us", "1us to 1s, at most admission.handshake-cost",
            "CPU time of a full handshake with CONNECT whose device certificate the lean verifier already knew (its "
                    + "cache answered: no certificate signature; measured 0.42-0.49 ms, BENCHMARKS.md); admission "
                    + "gives the "
                    + "rest of a full handshake's charge back.", duration(Duration.ofNanos(1000),
                            Duration.ofSeconds(1)));
    public static final ConfigKey<Duration> ADMISSION_RESUMED_HANDSHAKE_COST = new ConfigKey<>(
            "admission.resumed-handshake-cost", "400us", "1us to 1s, at most admission.handshake-cost",
            "CPU time of a resumed TLS handshake with CONNECT (no certificate, no signature; measured 0.26-0.31 ms, "
                    + "BENCHMARKS.md); admission gives the rest of a full handshake's charge back.",
            duration(Duration.ofNanos(1000), Duration.ofSeconds(1)));
    public static final ConfigKey<Duration> ADMISSION_REJECT_DELAY = new ConfigKey<>("admission.reject-delay", "1s",
            "0s to 1m",
                    "A turned-away connection (rare: one that arrives while another waits at the gate) is closed "
                            + "after a "
                    + "random delay up to this, so retries spread out.",
            duration(Duration.ZERO, Duration.ofMinutes(1)));

    public static final ConfigKey<Boolean> OVERLOAD_ENABLED = new ConfigKey<>("overload.enabled", "true",
            "true or false", "Run the overload monitor and its reactions.", bool());
    public static final ConfigKey<Duration> OVERLOAD_INTERVAL = new ConfigKey<>("overload.interval", "250ms",
            "10ms to 10s", "How often the overload monitor samples.",
            duration(Duration.ofMillis(10), Duration.ofSeconds(10)));
    public static final ConfigKey<Duration> OVERLOAD_RECOVERY_HOLD = new ConfigKey<>("overload.recovery-hold", "5s",
            "0s to 10m", "Every signal must stay below its exit threshold this long before the node leaves overload.",
            duration(Duration.ZERO, Duration.ofMinutes(10)));
    public static final ConfigKey<Duration> OVERLOAD_MIN_HOLD = new ConfigKey<>("overload.min-hold", "2s",
            "0s to 10m", "Least time between two changes of a level (busy or overloaded), so neither can flap.",
            duration(Duration.ZERO, Duration.ofMinutes(10)));
    public static final ConfigKey<String> OVERLOAD_LAG_REACTION = new ConfigKey<>("overload.lag-reaction",
            "admission", "admission or overload", "What event-loop lag and the handshake rate past their thresholds "
                    + "do. admission: the node is busy, its handshake budget shrinks to a quarter and the rest "
                    + "waits in the "
                    + "listen backlog until it is not (no listener is closed, nothing already admitted is paused). "
                    + "overload: they count as "
                    + "overload, with all its reactions.", oneOf("admission", "overload"));
    public static final ConfigKey<Duration> OVERLOAD_LAG = new ConfigKey<>("overload.event-loop-lag", "500ms",
            "0s (off) to 1m", "Overloaded when a task waits this long on an I/O event loop.",
            duration(Duration.ZERO, Duration.ofMinutes(1)));
    public static final ConfigKey<Duration> OVERLOAD_LAG_EXIT = new ConfigKey<>("overload.event-loop-lag-exit",
            "100ms", "0s to 1m, at most overload.event-loop-lag", "Event-loop lag below which that signal is back.",
            duration(Duration.ZERO, Duration.ofMinutes(1)));
    public static final ConfigKey<Integer> OVERLOAD_HEAP = new ConfigKey<>("overload.heap-after-gc", "90",
            "0 (off) to 100 percent", "Overloaded when the old generation is this full after a GC.", intRange(0, 100));
    public static final ConfigKey<Integer> OVERLOAD_HEAP_EXIT = new ConfigKey<>("overload.heap-after-gc-exit", "75",
            "0 to 100 percent, at most overload.heap-after-gc", "Heap after GC below which that signal is back.",
            intRange(0, 100));
    public static final ConfigKey<Integer> OVERLOAD_DIRECT = new ConfigKey<>("overload.direct-memory", "90",
            "0 (off) to 100 percent", "Overloaded when this share of the direct-memory limit is in use.",
            intRange(0, 100));
    public static final ConfigKey<Integer> OVERLOAD_DIRECT_EXIT = new ConfigKey<>("overload.direct-memory-exit", "75",
            "0 to 100 percent, at most overload.direct-memory", "Direct memory below which that signal is back.",
            intRange(0, 100));
    public static final ConfigKey<Integer> OVERLOAD_HANDSHAKE_RATE = new ConfigKey<>("overload.handshake-rate", "0",
            "0 (off) to 10000000 a second", "Overloaded when TLS handshakes start this fast.", intRange(0, 10_000_000));
    public static final ConfigKey<Integer> OVERLOAD_HANDSHAKE_RATE_EXIT = new ConfigKey<>(
            "overload.handshake-rate-exit", "0", "0 to 10000000 a second, at most overload.handshake-rate",
            "Handshake rate below which that signal is back.", intRange(0, 10_000_000));
    public static final ConfigKey<Integer> OVERLOAD_QUEUES = new ConfigKey<>("overload.queue-pressure", "95",
            "0 (off) to 100 percent", "Overloaded when the route store's bound is this full.",
            intRange(0, 100));
    public static final ConfigKey<Integer> OVERLOAD_QUEUES_EXIT = new ConfigKey<>("overload.queue-pressure-exit", "50",
            "0 to 100 percent, at most overload.queue-pressure", "Queue fill below which that signal is back.",
            intRange(0, 100));
    public static final ConfigKey<Integer> OVERLOAD_UPLINK = new ConfigKey<>("overload.uplink-pressure", "0",
            "0 (off) to 100 percent", "Overloaded when the uplink sink's bound is this full. Off by default: a full "
                    + "sink pauses reading of the devices that publish (memory stays bounded), and a sink that is full "
                    + "because Kafka is away is full on every node, so refusing connections moves no load.",
            intRange(0, 100));
    public static final ConfigKey<Integer> OVERLOAD_UPLINK_EXIT = new ConfigKey<>("overload.uplink-pressure-exit",
            "50", "0 to 100 percent, at most overload.uplink-pressure",
            "Uplink sink fill below which that signal is back.", intRange(0, 100));
    public static final ConfigKey<Boolean> OVERLOAD_CLOSE_LISTENERS = new ConfigKey<>("overload.close-listeners",
            "true", "true or false", "While overloaded, close the listening ports, so the "
                    + "balancer sends new devices to other nodes; reopen on recovery (/health/ready is 503 while "
                    + "overloaded either way).", bool());
    public static final ConfigKey<Boolean> OVERLOAD_REFUSE_CONNECTS = new ConfigKey<>("overload.refuse-connects",
            "true", "true or false", "While overloaded, answer CONNECT with CONNACK server unavailable after a random "
                    + "delay up to admission.reject-delay.", bool());
    public static final ConfigKey<Boolean> OVERLOAD_PAUSE_HANDSHAKES = new ConfigKey<>("overload.pause-handshakes",
            "true", "true or false",
                    "While overloaded, take no new connections off the listen backlog. Handshakes already admitted "
                    + "finish (admission.max-handshakes bounds them), so none runs into the handshake timeout.",
                            bool());

    public static final ConfigKey<Integer> SHUTDOWN_DRAIN_RATE = new ConfigKey<>("shutdown.drain-rate", "2000",
            "1 to 10000000", "Devices closed per second when the node drains (SIGTERM, POST /drain), after "
                    + "shutdown.ready-grace: at most what the other nodes' spare admission.connection-rate takes "
                    + "together.", intRange(1, 10_000_000));
    public static final ConfigKey<String> SHUTDOWN_SERVER_REFERENCE = new ConfigKey<>("shutdown.server-reference",
            null, "host, host:port, or several separated by spaces (MQTT 5.0 Server Reference; at most 200 "
                    + "printable ASCII characters)",
            "When the node drains, MQTT 5.0 devices are told DISCONNECT 0x9C (use another server) with this Server "
                    + "Reference instead of 0x8B (server shutting down); 3.1.1 devices are closed either way.",
            serverReference());
    public static final ConfigKey<Duration> SHUTDOWN_READY_GRACE = new ConfigKey<>("shutdown.ready-grace", "5s",
            "0s to 10m", "At shutdown, how long /health/ready answers 503 while the node still accepts devices, so "
                    + "the balancer takes it out before its port closes: at least the balancer's check interval "
                    + "times its fall count (the shipped HAProxy: 2 s x 2). Added to shutdown.timeout.",
            duration(Duration.ZERO, Duration.ofMinutes(10)));
    public static final ConfigKey<Duration> SHUTDOWN_TIMEOUT = new ConfigKey<>("shutdown.timeout", "60s",
            "0s to 1h", "Longest graceful shutdown; connections still open then are closed at once.",
            duration(Duration.ZERO, Duration.ofHours(1)));

    public static final ConfigKey<Integer> LOG_LIFECYCLE_RATE = new ConfigKey<>("log.lifecycle-rate", "20",
            "0 to 100000", "Connection lifecycle events logged at INFO per second; the rest are counted and "
                    + "summarised.", intRange(0, 100_000));

    public static final ConfigKey<String> LOG_LEVEL = new ConfigKey<>("log.level", "config",
            "config, trace, debug, info, warn or error", "Level of the gateway's own loggers (io.mqttgw, the event "
                    + "log included); config leaves what log4j2.xml says. Reloadable (SIGHUP, POST /config/reload).",
            oneOf("config", "trace", "debug", "info", "warn", "error"));

    public static final ConfigKey<Duration> CONFIG_WATCH_INTERVAL = new ConfigKey<>("config.watch-interval", "0s",
            "0s (off) or 1s to 1h", "How often the config file's content is compared with what was last read; a "
                    + "change reloads it as SIGHUP does (a refused file is logged once, until it changes again). "
                    + "Content, not file events: a Kubernetes ConfigMap volume swaps a symbolic link.", s -> {
                Duration d = duration(Duration.ZERO, Duration.ofHours(1)).apply(s);
                if (!d.isZero() && d.toMillis() < 1000) {
                    throw new IllegalArgumentException("out of range");
                }
                return d;
            });

    public static final List<ConfigKey<?>> ALL = List.of(NODE_ID,
            SERVER_TRANSPORT, SERVER_IO_THREADS, SERVER_BACKLOG, SERVER_REUSE_PORT, SERVER_ALLOCATOR, SERVER_WRITE_LOW,
                    SERVER_WRITE_HIGH,
            TLS_ENABLED, TLS_BIND, TLS_PORT, TLS_CERT_FILE, TLS_KEY_FILE, TLS_CA_FILE, TLS_CRL_FILE, TLS_CRL_MODE,
                    TLS_SEND_CA_NAMES,
            TLS_VERIFIER, TLS_CLIENT_AUTH, TLS_PROTOCOLS, TLS_GROUPS,
            TLS_ENGINE, TLS_HANDSHAKE_TIMEOUT, TLS_SESSION_CACHE_SIZE, TLS_SESSION_TIMEOUT, TLS_TICKET_KEY_ROTATION,
            TLS_TICKET_KEY_SOURCE, TLS_RELOAD_INTERVAL, TLS_CRL_DISCONNECT_RATE,
            TLS_PROXY_PROTOCOL, TCP_ENABLED, TCP_BIND, TCP_PORT, TCP_PROXY_PROTOCOL, PROXY_TRUSTED,
                    PROXY_HEADER_TIMEOUT,
            MQTT_CONNECT_TIMEOUT, MQTT_MAX_PACKET_SIZE, MQTT_MAX_CLIENT_ID_LENGTH, MQTT_MAX_INFLIGHT_UPLINK,
            MQTT_MAX_SUBSCRIPTIONS, MQTT_MAX_QOS, MQTT_MAX_TOPIC_LENGTH, MQTT_MAX_TOPIC_LEVELS,
            MQTT_WRITE_STALL_TIMEOUT, MQTT_MAX_PENDING_OUTBOUND, MQTT_TOPIC_ALIAS_MAXIMUM, MQTT_MAX_KEEP_ALIVE,
            IDENTITY_SOURCE, IDENTITY_CLIENT_ID_POLICY, IDENTITY_EXPIRY_WARNING,
            AUTH_PROVIDER, AUTH_TIMEOUT, AUTH_ALLOW_WITHOUT_CERTIFICATE,
            ACL_PUBLISH, ACL_SUBSCRIBE, ACL_ON_VIOLATION,
            ROUTES_PROVIDER,
            UPLINK_SINK, UPLINK_FILE_DIR, UPLINK_FILE_MAX_SIZE, UPLINK_FILE_MAX_FILES, UPLINK_FILE_QUEUE_CAPACITY,
            DOWNLINK_SOURCE, DOWNLINK_MAX_INFLIGHT, DOWNLINK_MAX_QUEUED, DOWNLINK_RETRY_INTERVAL, DOWNLINK_MAX_RETRIES,
            DOWNLINK_BROADCAST_RATE, SESSION_PROVIDER, SESSION_EXPIRY, SESSION_OPEN_TIMEOUT, SESSION_MAX_PENDING,
                    SESSION_MAX_RETAINED,
            SESSION_MAX_SESSIONS,
            ADMIN_ENABLED, ADMIN_BIND, ADMIN_PORT, ADMIN_IDLE_TIMEOUT, ADMIN_MAX_CONNECTIONS,
            ADMIN_OPERATIONS_TOKEN_FILE, ADMIN_OPERATIONS_BIND,
            ADMIN_OPERATIONS_PORT, ADMIN_OPERATIONS_TLS_CERT_FILE, ADMIN_OPERATIONS_TLS_KEY_FILE,
            ADMIN_OPERATIONS_TLS_CA_FILE, ADMIN_OPERATIONS_MAX_PAYLOAD,
            ADMISSION_CONNECTION_RATE, ADMISSION_MAX_HANDSHAKES, ADMISSION_HANDSHAKE_COST,
                    ADMISSION_KNOWN_DEVICE_HANDSHAKE_COST,
            ADMISSION_RESUMED_HANDSHAKE_COST, ADMISSION_REJECT_DELAY,
            OVERLOAD_ENABLED, OVERLOAD_INTERVAL, OVERLOAD_RECOVERY_HOLD, OVERLOAD_MIN_HOLD, OVERLOAD_LAG_REACTION,
            OVERLOAD_LAG, OVERLOAD_LAG_EXIT, OVERLOAD_HEAP,
            OVERLOAD_HEAP_EXIT, OVERLOAD_DIRECT, OVERLOAD_DIRECT_EXIT, OVERLOAD_HANDSHAKE_RATE,
            OVERLOAD_HANDSHAKE_RATE_EXIT, OVERLOAD_QUEUES, OVERLOAD_QUEUES_EXIT, OVERLOAD_UPLINK,
            OVERLOAD_UPLINK_EXIT, OVERLOAD_CLOSE_LISTENERS,
            OVERLOAD_REFUSE_CONNECTS, OVERLOAD_PAUSE_HANDSHAKES,
            SHUTDOWN_DRAIN_RATE, SHUTDOWN_SERVER_REFERENCE, SHUTDOWN_READY_GRACE, SHUTDOWN_TIMEOUT,
            LOG_LIFECYCLE_RATE, LOG_LEVEL, CONFIG_WATCH_INTERVAL);
}
