package io.mqttgw.core.config;

import static io.mqttgw.core.config.CoreConfigKeys.*;

import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.config.GatewayConfig.Acl;
import io.mqttgw.core.config.GatewayConfig.Admin;
import io.mqttgw.core.config.GatewayConfig.Admission;
import io.mqttgw.core.config.GatewayConfig.Auth;
import io.mqttgw.core.config.GatewayConfig.Downlink;
import io.mqttgw.core.config.GatewayConfig.Identity;
import io.mqttgw.core.config.GatewayConfig.Mqtt;
import io.mqttgw.core.config.GatewayConfig.Operations;
import io.mqttgw.core.config.GatewayConfig.Overload;
import io.mqttgw.core.config.GatewayConfig.ProxyProtocol;
import io.mqttgw.core.config.GatewayConfig.Server;
import io.mqttgw.core.config.GatewayConfig.Session;
import io.mqttgw.core.config.GatewayConfig.Shutdown;
import io.mqttgw.core.config.GatewayConfig.TcpListener;
import io.mqttgw.core.config.GatewayConfig.TlsListener;
import io.mqttgw.core.identity.IdentityRules;
import io.mqttgw.core.topic.TopicLimits;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Turns the loaded key values into the {@link GatewayConfig} snapshot and checks the rules that span keys (a
 * low-water mark below the high one, the files a listener needs, thresholds that can settle); each failure names the
 * keys and the fix. Single keys were already checked by their {@link ConfigKey}; the records only hold values.
 *
 * <p>Stateless; runs on the thread that loads or reloads the configuration, never on an event loop (it may resolve
 * the host name).
 */
final class GatewayConfigBuilder {
    private GatewayConfigBuilder() {
    }

    /** Builds the snapshot and checks rules that span keys; each failure names the keys and the fix. */
    static GatewayConfig build(ConfigValues v) {
        String nodeId = v.get(NODE_ID).isEmpty() ? hostName() : v.get(NODE_ID);
        if (IdentityRules.check(nodeId) != null) {
            // auto-assigned client ids embed the node id and must pass the identity rules like any other identity
            throw v.invalid(NODE_ID, "(" + nodeId + ") must not be empty, start with '$' or contain '+', '#', '/' or "
                    + "control characters: set node.id to a plain name");
        }

        long low = v.get(SERVER_WRITE_LOW);
        long high = v.get(SERVER_WRITE_HIGH);
        if (low >= high) {
            throw v.invalid(SERVER_WRITE_HIGH, "is not above " + SERVER_WRITE_LOW.name() + " (" + low + " bytes)");
        }
        Server server = new Server(v.get(SERVER_TRANSPORT), v.get(SERVER_IO_THREADS), v.get(SERVER_BACKLOG),
                v.get(SERVER_REUSE_PORT), v.get(SERVER_ALLOCATOR), (int) low, (int) high);

        boolean tlsOn = v.get(TLS_ENABLED);
        String clientAuth = v.get(TLS_CLIENT_AUTH);
        TlsListener tls = new TlsListener(tlsOn, v.get(TLS_BIND), v.get(TLS_PORT),
                tlsOn ? requiredPath(v, TLS_CERT_FILE) : null,
                tlsOn ? requiredPath(v, TLS_KEY_FILE) : null,
                tlsOn && !"none".equals(clientAuth) ? requiredPath(v, TLS_CA_FILE)
                        : v.find(TLS_CA_FILE).map(x -> v.path(TLS_CA_FILE)).orElse(null),
                v.find(TLS_CRL_FILE).map(x -> v.path(TLS_CRL_FILE)).orElse(null),
                clientAuth, v.get(TLS_PROTOCOLS), v.get(TLS_GROUPS), v.get(TLS_ENGINE), v.get(TLS_HANDSHAKE_TIMEOUT),
                v.get(TLS_SESSION_CACHE_SIZE), v.get(TLS_SESSION_TIMEOUT), v.get(TLS_RELOAD_INTERVAL),
                v.get(TLS_PROXY_PROTOCOL), v.get(TLS_CRL_MODE), v.get(TLS_SEND_CA_NAMES), v.get(TLS_VERIFIER),
                v.get(TLS_TICKET_KEY_ROTATION), v.get(TLS_TICKET_KEY_SOURCE), v.get(TLS_CRL_DISCONNECT_RATE));
        if (tls.enabled() && tls.crlHard() && tls.crlFile() == null) {
            throw v.invalid(TLS_CRL_MODE, "needs " + TLS_CRL_FILE.name() + ": set the CRL file or use soft");
        }
        TcpListener tcp = new TcpListener(v.get(TCP_ENABLED), v.get(TCP_BIND), v.get(TCP_PORT),
                v.get(TCP_PROXY_PROTOCOL));
        ProxyProtocol proxyProtocol = new ProxyProtocol(TrustedSources.parse(v.get(PROXY_TRUSTED)),
                v.get(PROXY_HEADER_TIMEOUT));
        if (!tls.enabled() && !tcp.enabled()) {
            throw new ConfigException("no listener is enabled: set " + TLS_ENABLED.name() + " or "
                    + TCP_ENABLED.name() + " to true");
        }
        Mqtt mqtt = new Mqtt(v.get(MQTT_CONNECT_TIMEOUT), v.get(MQTT_MAX_PACKET_SIZE).intValue(),
                v.get(MQTT_MAX_CLIENT_ID_LENGTH), v.get(MQTT_MAX_INFLIGHT_UPLINK), v.get(MQTT_MAX_SUBSCRIPTIONS),
                v.get(MQTT_MAX_QOS), new TopicLimits(v.get(MQTT_MAX_TOPIC_LENGTH), v.get(MQTT_MAX_TOPIC_LEVELS)),
                v.get(MQTT_WRITE_STALL_TIMEOUT), v.get(MQTT_MAX_PENDING_OUTBOUND), v.get(MQTT_TOPIC_ALIAS_MAXIMUM),
                (int) v.get(MQTT_MAX_KEEP_ALIVE).toSeconds());
        if (mqtt.maxPendingOutbound() <= high) {
            throw v.invalid(MQTT_MAX_PENDING_OUTBOUND, "is not above " + SERVER_WRITE_HIGH.name() + " (" + high
                    + " bytes): raise it, or lower the high-water mark");
        }
        Identity identity = new Identity(v.get(IDENTITY_SOURCE),
                "must-match".equals(v.get(IDENTITY_CLIENT_ID_POLICY)), v.get(IDENTITY_EXPIRY_WARNING));
        Auth auth = new Auth(v.get(AUTH_PROVIDER), v.get(AUTH_TIMEOUT), v.get(AUTH_ALLOW_WITHOUT_CERTIFICATE));
        Acl acl = new Acl(new TopicAcl(v.get(ACL_PUBLISH), v.get(ACL_SUBSCRIBE)),
                "disconnect".equals(v.get(ACL_ON_VIOLATION)));
        Admin admin = new Admin(v.get(ADMIN_ENABLED), v.get(ADMIN_BIND), v.get(ADMIN_PORT), operations(v),
                v.get(ADMIN_IDLE_TIMEOUT), v.get(ADMIN_MAX_CONNECTIONS));
        Shutdown shutdown = new Shutdown(v.get(SHUTDOWN_DRAIN_RATE), v.find(SHUTDOWN_SERVER_REFERENCE).orElse(null),
                v.get(SHUTDOWN_READY_GRACE),
                v.get(SHUTDOWN_TIMEOUT));
        Duration fullCost = v.get(ADMISSION_HANDSHAKE_COST);
        for (ConfigKey<Duration> cheaper : List.of(ADMISSION_KNOWN_DEVICE_HANDSHAKE_COST,
                ADMISSION_RESUMED_HANDSHAKE_COST)) {
            if (v.get(cheaper).compareTo(fullCost) > 0) {
                throw v.invalid(cheaper, "is above " + ADMISSION_HANDSHAKE_COST.name() + " (" + fullCost
                        + "): a cheaper handshake cannot cost more than a full one; lower it or raise "
                        + ADMISSION_HANDSHAKE_COST.name());
            }
        }
        Admission admission = new Admission(v.get(ADMISSION_CONNECTION_RATE), v.get(ADMISSION_MAX_HANDSHAKES),
                fullCost, v.get(ADMISSION_REJECT_DELAY), v.get(ADMISSION_KNOWN_DEVICE_HANDSHAKE_COST),
                v.get(ADMISSION_RESUMED_HANDSHAKE_COST));
        Overload overload = new Overload(v.get(OVERLOAD_ENABLED), v.get(OVERLOAD_INTERVAL),
                v.get(OVERLOAD_RECOVERY_HOLD), v.get(OVERLOAD_MIN_HOLD),
                "overload".equals(v.get(OVERLOAD_LAG_REACTION)), List.of(
                        threshold(v, OverloadThreshold.EVENT_LOOP_LAG, OVERLOAD_LAG, OVERLOAD_LAG_EXIT,
                                d -> d.toNanos() / 1e9),
                        threshold(v, OverloadThreshold.HEAP_AFTER_GC, OVERLOAD_HEAP, OVERLOAD_HEAP_EXIT,
                                p -> p / 100.0),
                        threshold(v, OverloadThreshold.DIRECT_MEMORY, OVERLOAD_DIRECT, OVERLOAD_DIRECT_EXIT,
                                p -> p / 100.0),
                        threshold(v, OverloadThreshold.HANDSHAKE_RATE, OVERLOAD_HANDSHAKE_RATE,
                                OVERLOAD_HANDSHAKE_RATE_EXIT, r -> (double) r),
                        threshold(v, OverloadThreshold.UPLINK_PRESSURE, OVERLOAD_UPLINK, OVERLOAD_UPLINK_EXIT,
                                p -> p / 100.0),
                        threshold(v, OverloadThreshold.ROUTES_PRESSURE, OVERLOAD_QUEUES, OVERLOAD_QUEUES_EXIT,
                                p -> p / 100.0)),
                v.get(OVERLOAD_CLOSE_LISTENERS), v.get(OVERLOAD_REFUSE_CONNECTS), v.get(OVERLOAD_PAUSE_HANDSHAKES));
        return new GatewayConfig(nodeId, server, tls, tcp, proxyProtocol, mqtt, identity, auth, acl,
                v.get(ROUTES_PROVIDER),
                v.get(UPLINK_SINK), v.get(DOWNLINK_SOURCE), new Downlink(v.get(DOWNLINK_MAX_INFLIGHT),
                        v.get(DOWNLINK_MAX_QUEUED), v.get(DOWNLINK_RETRY_INTERVAL), v.get(DOWNLINK_MAX_RETRIES),
                        v.get(DOWNLINK_BROADCAST_RATE)), new Session(v.get(SESSION_PROVIDER), v.get(SESSION_EXPIRY),
                                v.get(SESSION_OPEN_TIMEOUT),
                        v.get(SESSION_MAX_PENDING), v.get(SESSION_MAX_RETAINED), v.get(SESSION_MAX_SESSIONS)), admin,
                                admission, overload, shutdown,
                v.get(LOG_LIFECYCLE_RATE), v);
    }

    /** A signal's thresholds; the exit one must not be above the entry one (then the signal could never settle). */
    private static <T extends Comparable<T>> OverloadThreshold threshold(ConfigValues v, String signal,
            ConfigKey<T> enter, ConfigKey<T> exit, java.util.function.Function<T, Double> unit) {
        T in = v.get(enter);
        T out = v.get(exit);
        double enterValue = unit.apply(in);
        if (enterValue > 0 && out.compareTo(in) > 0) {
            throw v.invalid(exit, "is above " + enter.name() + " (" + in + ")");
        }
        return new OverloadThreshold(signal, enterValue, unit.apply(out));
    }

    /**
     * Operations credentials: the three TLS files together or none; TLS only on a listener of its own (the read-only
     * listener stays plain HTTP for balancer checks); nothing of it while the admin plane is off.
     */
    private static Operations operations(ConfigValues v) {
        List<ConfigKey<String>> tlsKeys = List.of(ADMIN_OPERATIONS_TLS_CERT_FILE, ADMIN_OPERATIONS_TLS_KEY_FILE,
                ADMIN_OPERATIONS_TLS_CA_FILE);
        long tlsSet = tlsKeys.stream().filter(k -> v.find(k).isPresent()).count();
        if (tlsSet != 0 && tlsSet != tlsKeys.size()) {
            throw new ConfigException("operator mutual TLS needs all of " + tlsKeys.stream().map(ConfigKey::name)
                    .toList() + ": set the missing ones or remove the others");
        }
        Operations o = new Operations(optionalPath(v, ADMIN_OPERATIONS_TOKEN_FILE), v.get(ADMIN_OPERATIONS_BIND),
                v.find(ADMIN_OPERATIONS_PORT).orElse(-1), optionalPath(v, ADMIN_OPERATIONS_TLS_CERT_FILE),
                optionalPath(v, ADMIN_OPERATIONS_TLS_KEY_FILE), optionalPath(v, ADMIN_OPERATIONS_TLS_CA_FILE),
                v.get(ADMIN_OPERATIONS_MAX_PAYLOAD).intValue());
        if (o.mutualTls() && !o.separateListener()) {
            throw new ConfigException(ADMIN_OPERATIONS_TLS_CA_FILE.name() + " is set but "
                    + ADMIN_OPERATIONS_PORT.name() + " is not: operator mutual TLS needs the operations listener of "
                    + "its own (the read-only listener stays plain HTTP for health checks); set "
                    + ADMIN_OPERATIONS_PORT.name());
        }
        if (o.enabled() && !v.get(ADMIN_ENABLED)) {
            throw new ConfigException("admin operations are configured but " + ADMIN_ENABLED.name() + " is false: "
                    + "set it to true or remove " + ADMIN_OPERATIONS_TOKEN_FILE.name() + " and "
                    + ADMIN_OPERATIONS_TLS_CA_FILE.name());
        }
        return o;
    }

    private static Path optionalPath(ConfigValues v, ConfigKey<String> key) {
        return v.find(key).map(x -> v.path(key)).orElse(null);
    }

    private static Path requiredPath(ConfigValues v, ConfigKey<String> key) {
        if (v.find(key).isEmpty()) {
            throw new ConfigException(key.name() + " is required while " + TLS_ENABLED.name()
                    + " is true: set it (" + key.allowed() + ") as " + key.environmentVariable()
                    + ", -D" + key.systemProperty() + " or in the file, or disable the TLS listener");
        }
        return v.path(key);
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "gateway";
        }
    }
}
