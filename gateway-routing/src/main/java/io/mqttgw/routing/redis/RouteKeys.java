package io.mqttgw.routing.redis;

/**
 * The key layout. Every Lua script and command touches one key (or keys sharing one hash tag), so a pipeline works
 * in Redis Cluster: Redisson splits it by slot.
 * <ul>
 *   <li>{@code P:route:{clientId}}: hash {@code node}, {@code epoch}, {@code connected_at} (epoch ms),
 *       {@code remote}; a business service finds a device with {@code HGETALL P:route:{device-1}}</li>
 *   <li>{@code P:node:{nodeId}:routes}: sorted set, member client id, score epoch: the routes a node wrote, for
 *       resync and for removing a dead node's routes</li>
 *   <li>{@code P:node:{nodeId}:alive}: heartbeat, "runId sequence" with a time to live</li>
 *   <li>{@code P:node:{nodeId}:cleanup}: claim of the node that removes a dead node's routes, left to expire</li>
 *   <li>{@code P:nodes}: set of node ids that ever wrote routes</li>
 *   <li>channel {@code P:takeover:{nodeId}}: "epoch clientId" when another node took the device over</li>
 *   <li>channels {@code P:ops:{nodeId}} and {@code P:ops-reply:{nodeId}}: operator operations forwarded to the node
 *       that holds the device, and their answers (binary, see {@code ForwardCodec})</li>
 * </ul>
 */
public record RouteKeys(String prefix) {

    public String route(String clientId) {
        return prefix + ":route:{" + clientId + "}";
    }

    public String nodeRoutes(String nodeId) {
        return prefix + ":node:{" + nodeId + "}:routes";
    }

    public String alive(String nodeId) {
        return prefix + ":node:{" + nodeId + "}:alive";
    }

    public String cleanupLock(String nodeId) {
        return prefix + ":node:{" + nodeId + "}:cleanup";
    }

    public String nodes() {
        return prefix + ":nodes";
    }

    /** The start of every takeover channel; the scripts append {@code {nodeId}}. */
    public String takeoverChannelPrefix() {
        return prefix + ":takeover:";
    }

    public String takeoverChannel(String nodeId) {
        return takeoverChannelPrefix() + "{" + nodeId + "}";
    }

    /** Where other nodes send the operator operations on devices {@code nodeId} holds. */
    public String operationsChannel(String nodeId) {
        return prefix + ":ops:{" + nodeId + "}";
    }

    /** Where the nodes holding devices answer the operations {@code nodeId} forwarded. */
    public String operationRepliesChannel(String nodeId) {
        return prefix + ":ops-reply:{" + nodeId + "}";
    }
}
