package io.mqttgw.core.acl;

import java.util.List;

/**
 * The topics a device may publish to and subscribe to, as MQTT topic filters in which a level written
 * {@code {client-id}} stands for the device's own client id. One instance serves every device that has the same
 * rules (the configured default), so a connection costs a reference, not a copy. Immutable and thread-safe.
 */
public final class TopicAcl {
    /** The placeholder level for the device's own client id. */
    public static final String CLIENT_ID = "{client-id}";
    /** Everything allowed. */
    public static final TopicAcl ALLOW_ALL = new TopicAcl(List.of("#"), List.of("#"));

    private final List<String> publishFilters;
    private final List<String> subscribeFilters;
    private final String[][] publish;
    private final String[][] subscribe;

    public TopicAcl(List<String> publish, List<String> subscribe) {
        this.publishFilters = List.copyOf(publish);
        this.subscribeFilters = List.copyOf(subscribe);
        this.publish = split(publish);
        this.subscribe = split(subscribe);
    }

    public List<String> publishFilters() {
        return publishFilters;
    }

    public List<String> subscribeFilters() {
        return subscribeFilters;
    }

    private static String[][] split(List<String> filters) {
        return filters.stream().map(f -> f.split("/", -1)).toArray(String[][]::new);
    }

    /**
     * Whether {@code clientId} may publish to {@code topic} (a topic name, no wildcards). Runs for every uplink
     * message, so the topic is walked in place rather than split into levels (an array and a string per level).
     */
    public boolean mayPublish(String clientId, String topic) {
        for (String[] filter : publish) {
            if (coversTopic(filter, topic, clientId)) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@link #covers} for a topic name given as one string: the same answer as {@code covers(allowed,
     * topic.split("/", -1), clientId)} ({@code TopicAclTest} holds them to each other), without the split.
     */
    static boolean coversTopic(String[] allowed, String topic, String clientId) {
        int start = 0;                     // where the topic's current level begins; -1 once past its last level
        for (int i = 0; i < allowed.length; i++) {
            String a = allowed[i];
            if ("#".equals(a)) {
                return i > 0 || !topic.startsWith("$");
            }
            if (start < 0) {
                return false;
            }
            int end = topic.indexOf('/', start);
            if (end < 0) {
                end = topic.length();
            }
            if (levelIs(topic, start, end, "#")) {
                return false;
            }
            if ("+".equals(a)) {
                if (i == 0 && topic.startsWith("$")) {
                    return false;
                }
            } else if (CLIENT_ID.equals(a)
                    ? clientId.isEmpty() || levelIs(topic, start, end, "+") || !levelIs(topic, start, end, clientId)
                    : !levelIs(topic, start, end, a)) {
                return false;
            }
            start = end < topic.length() ? end + 1 : -1;
        }
        return start < 0;
    }

    private static boolean levelIs(String topic, int start, int end, String level) {
        return end - start == level.length() && topic.regionMatches(start, level, 0, level.length());
    }

    /** Whether every topic {@code filter} can match is one {@code clientId} may subscribe to. */
    public boolean maySubscribe(String clientId, String filter) {
        String[] levels = filter.split("/", -1);
        for (String[] allowed : subscribe) {
            if (covers(allowed, levels, clientId)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code allowed} covers {@code wanted} level by level: '#' covers the rest, '+' covers any one level
     * (a '+' too, but not a '#'), {@code {client-id}} covers only the client id taken literally (never a wildcard),
     * a word only itself. A wanted
     * wildcard is covered only by a wildcard, so {@code devices/+/commands} is not within {@code
     * devices/{client-id}/#}.
     */
    static boolean covers(String[] allowed, String[] wanted, String clientId) {
        int i = 0;
        for (; i < allowed.length; i++) {
            String a = allowed[i];
            if ("#".equals(a)) {
                return !(wanted.length > 0 && wanted[0].startsWith("$")) || i > 0;
            }
            if (i >= wanted.length) {
                return false;
            }
            String w = wanted[i];
            if ("#".equals(w)) {
                return false;
            }
            if ("+".equals(a)) {
                if (i == 0 && w.startsWith("$")) {
                    return false;
                }
                continue;
            }
            if (CLIENT_ID.equals(a) ? !isOwnLevel(w, clientId) : !a.equals(w)) {
                return false;
            }
        }
        return i == wanted.length;
    }

    /**
     * Whether the wanted level is literally the client id: a wanted wildcard never is, even for a client id that is
     * itself "+" (so the characters of an identity can never widen a grant), and an empty or multi-level client id
     * never equals one level. Identities with such characters are refused at CONNECT already; this holds regardless.
     */
    private static boolean isOwnLevel(String wanted, String clientId) {
        return !"+".equals(wanted) && !"#".equals(wanted) && !clientId.isEmpty() && clientId.equals(wanted);
    }

    @Override
    public String toString() {
        return "publish " + publishFilters + ", subscribe " + subscribeFilters;
    }
}
