package io.mqttgw.routing.redis;

/**
 * The Lua scripts that make route writes and deletes atomic checks in Redis. Each touches one key, or a route and its
 * index entry, which in Redis Cluster share a slot ({@link RouteKeys#nodeSlotRoutes}). Epochs are compared as
 * numbers (they stay below 2^53, exact in Lua's doubles) and matched as the decimal text written.
 */
final class RouteScripts {
    private RouteScripts() {
    }

    /** Results of {@link #PUT}. */
    static final long PUT_STALE = 0;
    static final long PUT_WRITTEN = 1;
    static final long PUT_TOOK_OVER = 2;
    static final long PUT_SUPERSEDED = 3;
    static final long PUT_PROOF_CONFLICT = 4;

    /**
     * KEYS[1] route, KEYS[2] this node's route index (in Redis Cluster the one of the route's slot); ARGV node,
     * epoch, connected_at, remote, takeover channel prefix, client id, resync (0 or 1), proof ({@code certificate} or
     * {@code no_certificate}).
     * Refuses a write older than this node's route already there (0). Refuses to replace another node's route whose
     * identity was proven the other way (4): a connection without a certificate never takes a certificate device's
     * route, nor the reverse; a route written before routes carried a proof counts as {@code certificate}, the safe
     * side. Otherwise writes the route and, in the same script, its index entry (so no route exists that dead-node
     * cleanup cannot find) (1), and when the route named another node, publishes "epoch clientId" on that node's
     * channel (2). A resync write (ARGV[7] = 1) does not replace another node's route that connected later: it
     * answers 3, and this node closes its stale session.
     */
    static final String PUT = """
            local cur = redis.call('HMGET', KEYS[1], 'node', 'epoch', 'connected_at', 'proof')
            if cur[1] == ARGV[1] then
              if tonumber(cur[2]) > tonumber(ARGV[2]) then return 0 end
            elseif cur[1] then
              if (cur[4] or 'certificate') ~= ARGV[8] then return 4 end
              if ARGV[7] == '1' and tonumber(cur[3]) >= tonumber(ARGV[3]) then return 3 end
            end
            redis.call('HSET', KEYS[1], 'node', ARGV[1], 'epoch', ARGV[2], 'connected_at', ARGV[3], 'remote', ARGV[4],
              'proof', ARGV[8])
            redis.call('ZADD', KEYS[2], 'GT', ARGV[2], ARGV[6])
            if cur[1] and cur[1] ~= ARGV[1] then
              redis.call('PUBLISH', ARGV[5] .. '{' .. cur[1] .. '}', cur[2] .. ' ' .. ARGV[6])
              return 2
            end
            return 1
            """;

    /**
     * KEYS[1] route, KEYS[2] the node's index (in Redis Cluster the one of the route's slot); ARGV node, epoch, client
     * id. Deletes the route only if it still names this node and epoch: 1, else 0. Removes the index entry if it
     * still has this epoch, whatever the route holds: a route fenced off was written by another node or connection,
     * which indexed it itself.
     */
    static final String DELETE = """
            local s = redis.call('ZSCORE', KEYS[2], ARGV[3])
            if s and tonumber(s) == tonumber(ARGV[2]) then redis.call('ZREM', KEYS[2], ARGV[3]) end
            local cur = redis.call('HMGET', KEYS[1], 'node', 'epoch')
            if cur[1] == ARGV[1] and cur[2] == ARGV[2] then
              redis.call('DEL', KEYS[1])
              return 1
            end
            return 0
            """;

    /**
     * KEYS[1] node index; ARGV client id, epoch. Removes the member only if it still has this epoch. In Redis Cluster
     * for the entries a node of an earlier version wrote in its single index, {@link RouteKeys#nodeRoutes}.
     */
    static final String INDEX_REMOVE = """
            local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
            if s and tonumber(s) == tonumber(ARGV[2]) then
              redis.call('ZREM', KEYS[1], ARGV[1])
              return 1
            end
            return 0
            """;

    /**
     * KEYS a persistent session's keys (session, pending, messages); ARGV epoch, expiry ms. A dead node's device
     * never disconnects, so nobody would start its session's expiry: this starts it if the session is still the one
     * that connection opened (its epoch) and still held (no expiry yet): 1, else 0 (resumed elsewhere, or expiring).
     */
    static final String SESSION_EXPIRE = """
            if redis.call('HGET', KEYS[1], 'epoch') ~= ARGV[1] then return 0 end
            if redis.call('PTTL', KEYS[1]) >= 0 then return 0 end
            redis.call('PEXPIRE', KEYS[1], ARGV[2])
            redis.call('PEXPIRE', KEYS[2], ARGV[2])
            redis.call('PEXPIRE', KEYS[3], ARGV[2])
            return 1
            """;

    /** KEYS[1] heartbeat; ARGV value, ttl ms. Sets it and answers the value it replaced (nil when it was missing). */
    static final String HEARTBEAT = """
            local old = redis.call('GET', KEYS[1])
            redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
            return old
            """;
}
