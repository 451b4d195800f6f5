package io.mqttgw.core.mqtt.connect;

import io.mqttgw.core.connection.Mqtt5Session;
import io.mqttgw.core.connection.ProtocolCapabilities;
import io.mqttgw.core.spi.UplinkMessage;

/**
 * A CONNECT that passed its checks, as the later steps need it: the final client id, the will, and the session terms
 * the gateway granted. Immutable.
 *
 * @param capabilities         the CONNECT's protocol and the device's limits
 * @param clientId             the final client id (bound to the certificate identity, or assigned)
 * @param assignedClientId     5.0: the id the gateway chose for a device that sent an empty one (CONNACK), or null
 * @param will                 the will message, or null
 * @param cleanStart           3.1.1 clean session, 5.0 clean start: any stored session is discarded
 * @param expiryMillis         how long the session outlives the connection, for the session store
 * @param grantedExpirySeconds 5.0: the session expiry granted when below the one asked for (CONNACK), or -1
 * @param mqtt5Session         5.0: session expiry and will delay for the connection, or null
 * @param keepAliveSeconds     the keepalive the connection is held to
 * @param serverKeepAlive      5.0: the keepalive imposed by {@code mqtt.max-keep-alive} (CONNACK), or -1
 * @param userName             the CONNECT's user name, or null
 * @param password             the CONNECT's password, or null
 */
record ConnectRequest(ProtocolCapabilities capabilities, String clientId, String assignedClientId, UplinkMessage will,
                      boolean cleanStart, long expiryMillis, long grantedExpirySeconds, Mqtt5Session mqtt5Session,
                      int keepAliveSeconds, int serverKeepAlive, String userName, byte[] password)
        implements CheckOutcome {

    /** Stored unless nothing of it is to outlive the connection (3.1.1 clean session, 5.0 clean start, expiry 0). */
    boolean persistent() {
        return !(cleanStart && expiryMillis == 0);
    }
}
