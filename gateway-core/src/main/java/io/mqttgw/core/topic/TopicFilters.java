package io.mqttgw.core.topic;

/** MQTT 3.1.1 topic filter rules: validity of a filter and matching a topic against it. */
public final class TopicFilters {
    private TopicFilters() {
    }

    /** '#' only as the whole last level, '+' only as a whole level, not empty, no U+0000. */
    public static boolean isValidFilter(String filter) {
        int n = filter.length();
        if (n == 0 || n > 65535) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = filter.charAt(i);
            if (c == 0) {
                return false;
            }
            boolean levelStart = i == 0 || filter.charAt(i - 1) == '/';
            boolean levelEnd = i == n - 1 || filter.charAt(i + 1) == '/';
            if (c == '+' && !(levelStart && levelEnd)) {
                return false;
            }
            if (c == '#' && !(levelStart && i == n - 1)) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code topic} (no wildcards) matches {@code filter}; wildcards never match a leading '$'. */
    public static boolean matches(String filter, String topic) {
        if (!topic.isEmpty() && topic.charAt(0) == '$' && !filter.isEmpty()
                && (filter.charAt(0) == '+' || filter.charAt(0) == '#')) {
            return false;
        }
        int f = 0;
        int t = 0;
        int fn = filter.length();
        int tn = topic.length();
        while (f < fn) {
            char c = filter.charAt(f);
            if (c == '#') {
                return true;
            }
            if (c == '+') {
                while (t < tn && topic.charAt(t) != '/') {
                    t++;
                }
                f++;
            } else {
                if (t >= tn || topic.charAt(t) != c) {
                    // "a/#" also matches "a": the filter's "/#" may stand for nothing
                    return t == tn && c == '/' && f + 2 == fn && filter.charAt(f + 1) == '#';
                }
                f++;
                t++;
            }
        }
        return t == tn;
    }
}
