package io.mqttgw.routing.session;

/**
 * The Lua scripts of delayed wills ({@link RedisDelayedWills}). Each touches one Redis Cluster slot: a will key shares
 * its session's hash tag, a due index has its own.
 */
final class WillScripts {
    private WillScripts() {
    }

    /** Answers of {@link #ARM}. */
    static final long ARM_RESUMED = 0;
    static final long ARM_ARMED = 1;
    static final long ARM_ENDED = 2;

    /**
     * KEYS due index; ARGV due time ms, member ({@code <epoch>:<session key>}). Written before the will itself, so an
     * armed will is always found when due; an entry without its will is dropped by the poller.
     */
    static final String INDEX = """
            return redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
            """;

    /**
     * KEYS will, session; ARGV epoch, encoded will, time to live ms. Keeps the will if the connection of that epoch is
     * still the last that opened the session: 1. A newer connection resumed it: 0, nothing kept. A newer connection
     * started clean, or the session is gone (a clean start that keeps nothing, or Redis lost it): 2, the caller
     * publishes now, as the session has ended.
     */
    static final String ARM = """
            local session = redis.call('HMGET', KEYS[2], 'epoch', 'clean')
            if not session[1] then return 2 end
            if session[1] ~= ARGV[1] then
              if session[2] == '1' then return 2 end
              return 0
            end
            redis.call('DEL', KEYS[1])
            redis.call('HSET', KEYS[1], 'epoch', ARGV[1], 'will', ARGV[2])
            redis.call('PEXPIRE', KEYS[1], ARGV[3])
            return 1
            """;

    /**
     * KEYS due index; ARGV now ms, limit. The members due by now, oldest first, at most {@code limit}.
     */
    static final String DUE = """
            return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
            """;

    /**
     * KEYS will; ARGV epoch (empty: any). Takes the will armed by that epoch's connection: deletes it and answers
     * it, so of several claimers exactly one gets it; nil when it is gone (resumed, claimed already) or belongs to
     * another connection.
     */
    static final String CLAIM = """
            local w = redis.call('HMGET', KEYS[1], 'epoch', 'will')
            if not w[2] then return false end
            if ARGV[1] ~= '' and w[1] ~= ARGV[1] then return false end
            redis.call('DEL', KEYS[1])
            return w[2]
            """;

    /** KEYS due index; ARGV members. Forgets members whose wills were claimed or are gone. */
    static final String FORGET = """
            return redis.call('ZREM', KEYS[1], unpack(ARGV))
            """;
}
