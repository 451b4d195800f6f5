package io.mqttgw.core.admin;

import io.mqttgw.core.identity.IdentityRules;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * How a client id travels in an operator request: one percent-encoded path segment, a paging cursor, and the rules an
 * id must meet before the node looks anything up with it. Refusing here keeps a malformed or over-long id from ever
 * reaching the registry, the route table or the session store.
 *
 * <p>Stateless; any thread.
 */
final class ClientIdSyntax {
    private ClientIdSyntax() {
    }

    /** The percent-decoded id segment, or null when it is not one segment of valid percent-encoded UTF-8. */
    static String idOf(String segment) {
        if (segment.isEmpty() || segment.indexOf('/') >= 0) {
            return null;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(segment.length());
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c == '%') {
                int hi = i + 2 < segment.length() ? Character.digit(segment.charAt(i + 1), 16) : -1;
                int lo = hi < 0 ? -1 : Character.digit(segment.charAt(i + 2), 16);
                if (lo < 0) {
                    return null;
                }
                bytes.write(hi << 4 | lo);
                i += 2;
            } else if (c < 0x80) {
                bytes.write(c);
            } else {
                return null;
            }
        }
        try {
            // strict: a malformed sequence is refused rather than turned into U+FFFD (another id)
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** Null when {@code id} may name a device here, else why not (what the operator reads). */
    static String check(String id, String what, int maxLength) {
        if (id == null) {
            return what + " must be one path segment of percent-encoded UTF-8";
        }
        if (id.length() > maxLength) {
            return what + " longer than mqtt.max-client-id-length (" + maxLength + ")";
        }
        IdentityRules.Violation v = IdentityRules.check(id);
        return v == null ? null : what + " breaks the identity rules (" + v.label() + ")";
    }

    static String encodeCursor(String id) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(id.getBytes(StandardCharsets.UTF_8));
    }

    /** The id a cursor names, or null when it is not one {@link #encodeCursor} made. */
    static String decodeCursor(String cursor) {
        try {
            byte[] bytes = Base64.getUrlDecoder().decode(cursor);
            var decoder = StandardCharsets.UTF_8.newDecoder();
            return decoder.decode(ByteBuffer.wrap(bytes)).toString();
        } catch (IllegalArgumentException | CharacterCodingException e) {
            return null;
        }
    }
}
