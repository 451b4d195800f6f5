package io.mqttgw.core.mqtt.connect;

import io.mqttgw.core.acl.TopicAcl;
import io.mqttgw.core.connection.ConnectionContext;
import io.mqttgw.core.connection.DisconnectReason;
import io.mqttgw.core.mqtt.session.SessionServices;
import io.mqttgw.core.spi.AuthRequest;
import io.mqttgw.core.spi.AuthResult;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The authentication step of CONNECT: asks the {@code Authenticator} (started on the event loop; the caller bounds
 * the wait and hands the answer back to the loop) and turns its answer into the session's ACL, or a refusal. An
 * authenticator that throws or fails is the service being unavailable. Stateless apart from the services.
 */
final class ConnectAuthentication {
    private final SessionServices services;

    ConnectAuthentication(SessionServices services) {
        this.services = services;
    }

    /** Asks the authenticator about {@code request}; a throw becomes a failed stage. */
    CompletionStage<AuthResult> start(ConnectRequest request, ConnectionContext context) {
        AuthRequest auth = new AuthRequest(request.clientId(), request.userName(), request.password(),
                context.certificateIdentity(), context.certificate(), context.remoteAddress(), context.listener());
        try {
            return services.authenticator().authenticate(auth);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The answer, where a failure, a missing answer or the end of the wait ({@code error} set) is unavailability. */
    static AuthResult orUnavailable(AuthResult result, Throwable error) {
        return error != null || result == null ? AuthResult.deny(AuthResult.Decision.SERVER_UNAVAILABLE) : result;
    }

    /** Why the answer refuses the CONNECT, or null when it allows it. */
    static Refused denial(ConnectRequest request, AuthResult result) {
        return result.allowed() ? null
                : new Refused(request.clientId(), refusalOf(result.decision()), DisconnectReason.CONNECT_REFUSED);
    }

    /** A will the session's ACL does not let it publish refuses the CONNECT; null when there is none such. */
    Refused willOutside(ConnectRequest request, TopicAcl acl) {
        if (request.will() != null && !acl.mayPublish(request.clientId(), request.will().topic())) {
            services.metrics().aclDenied(true);
            return new Refused(request.clientId(), ConnectRefusal.NOT_AUTHORIZED, DisconnectReason.CONNECT_REFUSED);
        }
        return null;
    }

    /** The refusal for an authenticator's denial ({@code ALLOW} is never refused). */
    static ConnectRefusal refusalOf(AuthResult.Decision decision) {
        return switch (decision) {
            case ALLOW, NOT_AUTHORIZED -> ConnectRefusal.NOT_AUTHORIZED;
            case BAD_CREDENTIALS -> ConnectRefusal.BAD_CREDENTIALS;
            case SERVER_UNAVAILABLE -> ConnectRefusal.SERVER_UNAVAILABLE;
        };
    }

    /**
     * The device's own ACL when its authentication answer carries one, else the configured default (shared); the
     * default as the last reload left it.
     */
    TopicAcl aclOf(AuthResult result) {
        String publish = result.attributes().get(AuthResult.ACL_PUBLISH);
        String subscribe = result.attributes().get(AuthResult.ACL_SUBSCRIBE);
        TopicAcl defaults = services.live().current().acl().defaults();
        if (publish == null && subscribe == null) {
            return defaults;
        }
        return new TopicAcl(publish == null ? defaults.publishFilters() : split(publish),
                subscribe == null ? defaults.subscribeFilters() : split(subscribe));
    }

    private static List<String> split(String filters) {
        return Arrays.stream(filters.split(",")).map(String::trim).filter(f -> !f.isEmpty()).toList();
    }
}
