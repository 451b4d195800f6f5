package io.mqttgw.core.events;

import java.util.Locale;

/**
 * The one escaping for text from outside (client ids, user names, topics, request lines) before it goes into a log
 * line, so nobody can forge or split log lines: backslash, control characters (C0, DEL, C1) and the Unicode line and
 * paragraph separators become backslash escapes. Text without any of them is returned as is (no copy). Stateless and
 * thread-safe.
 */
public final class LogText {
    private LogText() {
    }

    /** {@code text} escaped for a log line; {@code null} becomes the text {@code null}. */
    public static String escape(String text) {
        if (text == null) {
            return "null";
        }
        int n = text.length();
        int i = 0;
        while (i < n && !needsEscape(text.charAt(i))) {
            i++;
        }
        if (i == n) {
            return text;
        }
        StringBuilder out = new StringBuilder(n + 16).append(text, 0, i);
        for (; i < n; i++) {
            char c = text.charAt(i);
            if (!needsEscape(c)) {
                out.append(c);
                continue;
            }
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            }
        }
        return out.toString();
    }

    private static boolean needsEscape(char c) {
        return c < 0x20 || c == '\\' || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029';
    }
}
