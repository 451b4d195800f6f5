package io.mqttgw.auth.http;

import io.mqttgw.core.spi.AuthRequest;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;

/** What of a CONNECT can go into the call: by name in the URL template ({@code {name}}) and the JSON body. */
enum RequestField {
    CLIENT_ID("client-id", "clientId"),
    USERNAME("username", "username"),
    /** The CONNECT password as UTF-8 text (bytes that are not UTF-8 become U+FFFD); body only. */
    PASSWORD("password", "password"),
    CERTIFICATE_IDENTITY("certificate-identity", "certificateIdentity"),
    /** SHA-256 of the certificate's DER encoding, 64 lower-case hex digits. */
    CERTIFICATE_FINGERPRINT("certificate-fingerprint", "certificateFingerprint"),
    /** {@code ip:port}, an IPv6 address in brackets; body only. */
    REMOTE_ADDRESS("remote-address", "remoteAddress"),
    LISTENER("listener", "listener");

    final String configName;
    final String jsonName;

    RequestField(String configName, String jsonName) {
        this.configName = configName;
        this.jsonName = jsonName;
    }

    static RequestField named(String configName) {
        for (RequestField f : values()) {
            if (f.configName.equals(configName)) {
                return f;
            }
        }
        return null;
    }

    /** Whether the value may appear in a URL (passwords and addresses stay out of access logs). */
    boolean inUrl() {
        return this != PASSWORD && this != REMOTE_ADDRESS;
    }

    /** The value for {@code request}, or null when the CONNECT has none. */
    String valueOf(AuthRequest request, String fingerprint) {
        return switch (this) {
            case CLIENT_ID -> request.clientId();
            case USERNAME -> request.username();
            case PASSWORD -> request.password() == null ? null
                    : new String(request.password(), StandardCharsets.UTF_8);
            case CERTIFICATE_IDENTITY -> request.certificateIdentity();
            case CERTIFICATE_FINGERPRINT -> fingerprint;
            case REMOTE_ADDRESS -> address(request.remoteAddress());
            case LISTENER -> request.listener();
        };
    }

    private static String address(SocketAddress address) {
        if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
            String host = inet.getAddress().getHostAddress();
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + inet.getPort();
        }
        return address == null ? null : address.toString();
    }
}
