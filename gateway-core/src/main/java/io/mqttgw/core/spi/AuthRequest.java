package io.mqttgw.core.spi;

import java.net.SocketAddress;
import java.security.cert.X509Certificate;

/**
 * One CONNECT to decide on.
 *
 * @param clientId          the client id the session will have (after the identity policy)
 * @param username          CONNECT user name, or null
 * @param password          CONNECT password, or null
 * @param certificateIdentity identity read from the verified client certificate, or null without one
 * @param certificate       the verified client certificate, or null without one
 * @param remoteAddress     the device's address
 * @param listener          name of the listener ({@code tls} or {@code tcp})
 */
public record AuthRequest(String clientId, String username, byte[] password, String certificateIdentity,
                          X509Certificate certificate, SocketAddress remoteAddress, String listener) {
}
