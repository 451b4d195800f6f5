package io.mqttgw.core.defaults;

import io.mqttgw.core.spi.DownlinkMessage;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Retained messages by topic, in a tree with one node per topic level, so a wildcard filter walks only the branches it
 * can match instead of every retained message ({@code +} visits one level's children, {@code #} the subtree below it;
 * neither matches a first level starting with '$', MQTT-4.7.2-1). An exact topic is one map lookup. Readers take no
 * lock: children are concurrent maps and a node's message is volatile, so a read racing a write may or may not see
 * it. Writers (retain, delete) are rare and serialised by this object's monitor, which also makes the count bound
 * exact and lets a delete prune the nodes it empties. Thread-safe.
 */
final class RetainedTopics {
    private static final class Node {
        final ConcurrentHashMap<String, Node> children = new ConcurrentHashMap<>(2);
        volatile DownlinkMessage message;
    }

    private final Node root = new Node();
    private final ConcurrentHashMap<String, DownlinkMessage> byTopic = new ConcurrentHashMap<>();

    /** Stores or replaces the topic's message; false (nothing stored) when a new topic would pass {@code max}. */
    synchronized boolean put(DownlinkMessage message, int max) {
        String topic = message.topic();
        if (byTopic.size() >= max && !byTopic.containsKey(topic)) {
            return false;
        }
        Node node = root;
        for (String level : levels(topic)) {
            node = node.children.computeIfAbsent(level, l -> new Node());
        }
        node.message = message;
        byTopic.put(topic, message);
        return true;
    }

    /** Deletes the topic's message and the tree nodes left empty by it. */
    synchronized void remove(String topic) {
        if (byTopic.remove(topic) == null) {
            return;
        }
        String[] levels = levels(topic);
        Node[] path = new Node[levels.length + 1];
        path[0] = root;
        for (int i = 0; i < levels.length; i++) {
            path[i + 1] = path[i].children.get(levels[i]);
            if (path[i + 1] == null) {
                return;
            }
        }
        path[levels.length].message = null;
        for (int i = levels.length; i > 0; i--) {
            Node n = path[i];
            if (n.message != null || !n.children.isEmpty()) {
                break;
            }
            path[i - 1].children.remove(levels[i - 1], n);
        }
    }

    DownlinkMessage get(String topic) {
        return byTopic.get(topic);
    }

    int size() {
        return byTopic.size();
    }

    /** Tree nodes below the root (a delete prunes the ones it empties). */
    int nodes() {
        return count(root);
    }

    private static int count(Node node) {
        int n = 0;
        for (Node child : node.children.values()) {
            n += 1 + count(child);
        }
        return n;
    }

    /** Adds the messages whose topic {@code filter} (a valid MQTT filter) matches to {@code out}. */
    void match(String filter, List<DownlinkMessage> out) {
        if (filter.indexOf('+') < 0 && filter.indexOf('#') < 0) {
            DownlinkMessage m = byTopic.get(filter);
            if (m != null) {
                out.add(m);
            }
            return;
        }
        match(root, levels(filter), 0, out);
    }

    private static void match(Node node, String[] filter, int i, List<DownlinkMessage> out) {
        if (i == filter.length) {
            addIfPresent(node, out);
            return;
        }
        String level = filter[i];
        if (level.equals("#")) {
            // "a/#" also matches "a" itself
            if (i > 0) {
                addIfPresent(node, out);
            }
            addSubtree(node, i == 0, out);
        } else if (level.equals("+")) {
            node.children.forEach((name, child) -> {
                if (i > 0 || !name.startsWith("$")) {
                    match(child, filter, i + 1, out);
                }
            });
        } else {
            Node child = node.children.get(level);
            if (child != null) {
                match(child, filter, i + 1, out);
            }
        }
    }

    private static void addSubtree(Node node, boolean firstLevel, List<DownlinkMessage> out) {
        node.children.forEach((name, child) -> {
            if (!firstLevel || !name.startsWith("$")) {
                addIfPresent(child, out);
                addSubtree(child, false, out);
            }
        });
    }

    private static void addIfPresent(Node node, List<DownlinkMessage> out) {
        DownlinkMessage m = node.message;
        if (m != null) {
            out.add(m);
        }
    }

    private static String[] levels(String topic) {
        return topic.split("/", -1);
    }
}
