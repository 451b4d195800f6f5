package io.mqttgw.core.mqtt.connect;

import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.core.identity.IdentityRules;
import io.mqttgw.core.mqtt.session.SessionServices;

/**
 * The identity step of CONNECT: binds the client id a device asked for to the identity its certificate proves (or
 * assigns one to an empty id), then holds the final id, whatever its source, to {@link IdentityRules} before anyone,
 * the authenticator included, sees it. Stateless apart from the services; event loop only.
 */
final class ClientIdBinding {
    private final SessionServices services;

    ClientIdBinding(SessionServices services) {
        this.services = services;
    }

    /** The final client id, or why there is none. */
    record Bound(String clientId, Refused refused) {
        static Bound refused(String clientId, ConnectRefusal refusal, DisconnectReason reason) {
            return new Bound(null, new Refused(clientId, refusal, reason));
        }
    }

    Bound bind(ConnectionContext context, String requested) {
        String clientId = requested;
        GatewayConfig.Identity policy = services.config().identity();
        if (context.proof() == IdentityProof.CERTIFICATE) {
            String identity = context.certificateIdentity();
            if (identity == null) {
                return Bound.refused(requested, ConnectRefusal.NOT_AUTHORIZED, DisconnectReason.CONNECT_REFUSED);
            }
            if (policy.clientIdMustMatch() && !requested.isEmpty() && !requested.equals(identity)) {
                return Bound.refused(requested, ConnectRefusal.IDENTIFIER_REJECTED, DisconnectReason.CONNECT_REFUSED);
            }
            // equal or taken from the certificate: the session keeps one string for both, not the decoder's copy too
            clientId = identity;
        } else if (requested.isEmpty()) {
            clientId = "auto-" + services.config().nodeId() + "-"
                    + Long.toString(services.epochs().incrementAndGet(), 36);
        }
        IdentityRules.Violation violation = IdentityRules.check(clientId);
        if (violation != null) {
            services.metrics().identityRejected(violation.label());
            return Bound.refused(clientId, ConnectRefusal.IDENTIFIER_REJECTED, DisconnectReason.INVALID_IDENTITY);
        }
        return new Bound(clientId, null);
    }
}
