package io.mqttgw.routing.redis;

/**
 * The key layout. Every Lua script and command touches one key (or keys sharing one slot), so a pipeline works in
 * Redis Cluster: Redisson splits it by slot.
 * <ul>
 *   <li>{@code P:route:{clientId}}: hash {@code node}, {@code epoch}, {@code connected_at} (epoch ms),
 *       {@code remote}; a business service finds a device with {@code HGETALL P:route:{device-1}}</li>
 *   <li>{@code P:node:{nodeId}:routes}: sorted set, member client id, score epoch: the routes a node wrote, for
 *       resync and for removing a dead node's routes. In Redis Cluster only nodes of earlier versions write it (it is
 *       read until empty, then no longer exists)</li>
 *   <li>{@code P:node-routes:{tag}:nodeId} (Redis Cluster only): the same index split by slot, one sorted set per
 *       slot that holds routes of the node; {@code tag} is the slot's {@link SlotTags fixed tag}, so a route and its
 *       index entry share a slot and are written by one script on the route's own shard</li>
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

    /** The node's index entries for the routes in {@code slot} (Redis Cluster). */
    public String nodeSlotRoutes(String nodeId, int slot) {
        return prefix + ":node-routes:{" + SlotTags.of(slot) + "}:" + nodeId;
    }

    /** The node's index in the slot of {@code clientId}'s route (Redis Cluster). */
    public String nodeSlotRoutesOf(String nodeId, String clientId) {
        return nodeSlotRoutes(nodeId, ClusterShards.slot(route(clientId)));
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
