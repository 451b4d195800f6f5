package io.mqttgw.core.identity;

import java.util.Locale;

/**
 * The one rule for what may name a device, applied to the final identity of every connection whatever its source
 * (certificate CN or SAN, client id, auto-assigned id): nothing that would change the meaning of a topic or ACL
 * pattern the identity is put into ({@code +}, {@code #}, {@code /}, a leading {@code $}), and nothing that could
 * forge or split a log line or a key (NUL and other control characters, DEL, the C1 range, U+2028/U+2029). Stateless
 * and thread-safe.
 */
public final class IdentityRules {
    private IdentityRules() {
    }

    /** Why an identity was refused; each value is a label of {@code mqttgw_identities_rejected_total}. */
    public enum Violation {
        /** Empty: names nothing. */
        EMPTY,
        /** Contains an MQTT wildcard, {@code +} or {@code #}. */
        WILDCARD,
        /** Contains the topic level separator {@code /}. */
        LEVEL_SEPARATOR,
        /** Starts with {@code $}, the prefix of server topics that wildcards do not match. */
        DOLLAR_PREFIX,
        /** Contains NUL, another C0 or C1 control character, DEL, or a Unicode line or paragraph separator. */
        CONTROL_CHARACTER;

        private final String label = name().toLowerCase(Locale.ROOT);

        public String label() {
            return label;
        }
    }

    /** Null when {@code identity} may name a device, else the first rule it breaks. */
    public static Violation check(String identity) {
        if (identity == null || identity.isEmpty()) {
            return Violation.EMPTY;
        }
        if (identity.charAt(0) == '$') {
            return Violation.DOLLAR_PREFIX;
        }
        for (int i = 0; i < identity.length(); i++) {
            char c = identity.charAt(i);
            if (c == '+' || c == '#') {
                return Violation.WILDCARD;
            }
            if (c == '/') {
                return Violation.LEVEL_SEPARATOR;
            }
            if (isControl(c)) {
                return Violation.CONTROL_CHARACTER;
            }
        }
        return null;
    }

    /** C0 (incl. NUL), DEL, C1, and the Unicode line and paragraph separators. */
    static boolean isControl(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029';
    }
}
