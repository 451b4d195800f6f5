package io.mqttgw.auth.cache;

import io.mqttgw.auth.x509.Fingerprints;
import io.mqttgw.core.spi.AuthRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;

/**
 * The cache and coalescing key of a CONNECT: everything that decides the service's answer, i.e. the listener, the
 * client id and a SHA-256 over the user name, the password and the certificate fingerprint. The password is never
 * kept, only its hash inside the digest. The remote address is not part of it: a service that decides by address
 * must run with the cache off.
 */
public final class DeviceKey {
    private DeviceKey() {
    }

    /** @param fingerprint SHA-256 of the device certificate, or null without one */
    public static String of(AuthRequest request, String fingerprint) {
        MessageDigest d = Fingerprints.sha256();
        update(d, request.username() == null ? null : request.username().getBytes(StandardCharsets.UTF_8));
        update(d, request.password());
        update(d, fingerprint == null ? null : fingerprint.getBytes(StandardCharsets.US_ASCII));
        return request.listener() + '\n' + request.clientId() + '\n'
                + Base64.getUrlEncoder().withoutPadding().encodeToString(d.digest());
    }

    /** Length-prefixed, so that ("ab", "c") and ("a", "bc") differ and absent differs from empty. */
    private static void update(MessageDigest d, byte[] value) {
        int len = value == null ? -1 : value.length;
        d.update(new byte[] {(byte) (len >>> 24), (byte) (len >>> 16), (byte) (len >>> 8), (byte) len});
        if (value != null) {
            d.update(value);
        }
    }
}
