package io.mqttgw.routing.session;

/**
 * The key layout of sessions and retained messages. A session's three keys share the hash tag {@code {clientId}}, so
 * each script touches one Redis Cluster slot.
 * <ul>
 *   <li>{@code P:session:{clientId}}: hash {@code epoch} (of the connection that opened it last), {@code subs}
 *       (the subscriptions, see {@link MessageCodec#encodeSubscriptions}), {@code seq} (the last message id)</li>
 *   <li>{@code P:session:{clientId}:pending}: list of message ids, oldest first</li>
 *   <li>{@code P:session:{clientId}:messages}: hash message id to encoded message ({@link MessageCodec})</li>
 *   <li>{@code P:retained}: hash topic to encoded retained message</li>
 *   <li>{@code P:will:{clientId}}: hash {@code epoch} (of the connection whose will it is), {@code will} (see
 *       {@link WillCodec}): an MQTT 5.0 will waiting for its delay, deleted when the session is opened again</li>
 *   <li>{@code P:wills-due:{n}}: sorted set of the wills of the client ids of group {@code n}
 *       ({@link #willGroup}), member {@code <epoch>:<clientId>}, score the time the will is due</li>
 *   <li>{@code P:sessions-left:{nodeId}}: sorted set of the persistent sessions whose device last disconnected from
 * that node, member {@code <epoch>:<clientId>}, score the disconnect time; trimmed to {@code session.max-sessions}
 *       by deleting the oldest sessions</li>
 *   <li>{@code P:sessions-watch:{nodeId}}: "runId sequence", rewritten by that node at every check; a value other
 *       than the one it wrote last means Redis lost its data, and the node writes its connected devices' sessions
 *       again</li>
 * </ul>
 * While the device is connected the session keys have no time to live; when it disconnects they get
 * {@code session.expiry}.
 */
public record SessionKeys(String prefix) {

    public String session(String clientId) {
        return prefix + ":session:{" + clientId + "}";
    }

    public String pending(String clientId) {
        return session(clientId) + ":pending";
    }

    public String messages(String clientId) {
        return session(clientId) + ":messages";
    }

    public String sessionsLeft(String nodeId) {
        return prefix + ":sessions-left:{" + nodeId + "}";
    }

    /** The value this node's session store writes at every check, to notice that Redis lost (or replaced) it. */
    public String watch(String nodeId) {
        return prefix + ":sessions-watch:{" + nodeId + "}";
    }

    public String will(String clientId) {
        return prefix + ":will:{" + clientId + "}";
    }

    /** Due wills are indexed in this many sorted sets, so that on Redis Cluster they spread over the masters. */
    public static final int WILL_GROUPS = 16;

    public static int willGroup(String clientId) {
        // String.hashCode is specified, so every node computes the same group
        return Math.floorMod(clientId.hashCode(), WILL_GROUPS);
    }

    public String willsDue(int group) {
        return prefix + ":wills-due:{" + group + "}";
    }

    public String retained() {
        return prefix + ":retained";
    }
}
