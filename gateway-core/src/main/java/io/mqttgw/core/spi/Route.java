package io.mqttgw.core.spi;

import io.mqttgw.core.identity.IdentityProof;
import java.util.Objects;

/**
 * Where a device is connected.
 *
 * @param clientId      the device's client id
 * @param nodeId        the gateway node holding the connection
 * @param epoch         connection epoch, unique and increasing per node; fences late deletes and writes
 * @param connectedAtMillis connect time, epoch milliseconds
 * @param remoteAddress the device's address as text
 * @param proof         how the connection proved its identity: a shared route store refuses to let a route of one
 *                      proof kind replace another node's route of the other kind (see {@link RouteConflictException})
 */
public record Route(String clientId, String nodeId, long epoch, long connectedAtMillis, String remoteAddress,
                    IdentityProof proof) {

    public Route {
        Objects.requireNonNull(proof, "proof");
    }

    /** A route of a certificate-proven connection. */
    public Route(String clientId, String nodeId, long epoch, long connectedAtMillis, String remoteAddress) {
        this(clientId, nodeId, epoch, connectedAtMillis, remoteAddress, IdentityProof.CERTIFICATE);
    }
}
