package io.mqttgw.core.events;

/** Makes text from outside (topics, client ids, request lines) safe for one log line. */
public final class LogText {
    private LogText() {
    }

    /**
     * A backslash, CR, LF and the other control characters written as escapes (a doubled backslash, backslash-r,
     * backslash-n, backslash-u and four hex digits), so a value can neither end the line nor forge another.
     */
    public static String escape(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            String replacement = c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\r' ? "\\r"
                    : c < 0x20 || c == 0x7f || c == '\u2028' || c == '\u2029' ? String.format("\\u%04x", (int) c)
                    : null;
            if (replacement != null && b == null) {
                b = new StringBuilder(s.length() + 16).append(s, 0, i);
            }
            if (b != null) {
                if (replacement != null) {
                    b.append(replacement);
                } else {
                    b.append(c);
                }
            }
        }
        return b == null ? s : b.toString();
    }
}
