package io.mqttgw.routing.session;

/**
 * The Lua scripts that keep a session's three keys consistent (each script touches one session's keys, which share a
 * hash tag) and match retained topics on the Redis side.
 */
final class SessionScripts {
    private SessionScripts() {
    }

    /** Answer of {@link #APPEND} when the device has no persistent session. */
    static final long APPEND_NO_SESSION = -1;
    /** Answer of {@link #APPEND} when {@code session.max-pending} messages are pending. */
    static final long APPEND_FULL = -2;

    /**
     * KEYS session, pending, messages, will; ARGV clean (0/1), epoch, keep (0/1). Clean: deletes the session, which
     * ends it, so a will waiting for its delay is taken (deleted and answered as a fifth element, for this node to
     * publish at once); without keep (nothing is to outlive the connection) answers {0, false, {}, {}, will} with the
     * will, else nothing. Not clean: the session resumes, so a waiting will is deleted, whichever node armed it. Then
     * marks the session opened by this epoch, and whether clean (created if absent), takes any expiry off, and answers
     * {existed (0/1), subscriptions or false, {id...}, {message...}, will or false}.
     */
    static final String OPEN = """
            local will = false
            if ARGV[1] == '1' then
              if KEYS[4] then
                will = redis.call('HGET', KEYS[4], 'will')
                if will then redis.call('DEL', KEYS[4]) end
              end
              redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
              if ARGV[3] ~= '1' then
                if will then return {0, false, {}, {}, will} end
                return {}
              end
            elseif KEYS[4] then
              redis.call('DEL', KEYS[4])
            end
            local existed = redis.call('EXISTS', KEYS[1])
            redis.call('HSET', KEYS[1], 'epoch', ARGV[2], 'clean', ARGV[1])
            redis.call('PERSIST', KEYS[1])
            redis.call('PERSIST', KEYS[2])
            redis.call('PERSIST', KEYS[3])
            local subs = redis.call('HGET', KEYS[1], 'subs')
            local ids = redis.call('LRANGE', KEYS[2], 0, -1)
            local kept, messages = {}, {}
            -- in slices: unpack() of more than a few thousand values overflows Lua's C stack
            for i = 1, #ids, 500 do
              local slice = redis.call('HMGET', KEYS[3], unpack(ids, i, math.min(i + 499, #ids)))
              for j = 1, #slice do
                if slice[j] then
                  kept[#kept + 1] = ids[i + j - 1]
                  messages[#messages + 1] = slice[j]
                else
                  -- an id without its message would take a place of max-pending for ever
                  redis.call('LREM', KEYS[2], 1, ids[i + j - 1])
                end
              end
            end
            return {existed, subs, kept, messages, will}
            """;

    /**
     * KEYS session, pending. Reads without touching: {} when there is no session, else {subscriptions or false,
     * milliseconds to expiry (-1 while connected), pending count}.
     */
    static final String DESCRIBE = """
            if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
            return {redis.call('HGET', KEYS[1], 'subs'), redis.call('PTTL', KEYS[1]), redis.call('LLEN', KEYS[2])}
            """;

    /**
     * KEYS session, pending, messages; ARGV epoch, expiry ms. Starts the expiry if the session was last opened by
     * this epoch (a newer connection keeps it alive): 1, else 0. An expiry of 0 deletes the keys at once (PEXPIRE
     * with a non-positive time does).
     */
    static final String DISCONNECTED = """
            if redis.call('HGET', KEYS[1], 'epoch') ~= ARGV[1] then return 0 end
            redis.call('PEXPIRE', KEYS[1], ARGV[2])
            redis.call('PEXPIRE', KEYS[2], ARGV[2])
            redis.call('PEXPIRE', KEYS[3], ARGV[2])
            return 1
            """;

    /**
     * KEYS sessions-left (of this node); ARGV now ms, member ({@code <epoch>:<clientId>}), max sessions, expired-before
     * ms. Drops members whose sessions have expired anyway, adds the member, and pops the oldest past the bound:
     * answers {count kept, member, score, member, score...} of the popped ones.
     */
    static final String TRACK_DISCONNECTED = """
            redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[4])
            redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
            local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[3])
            local out = {0}
            if over > 0 then
              local popped = redis.call('ZPOPMIN', KEYS[1], over)
              for i = 1, #popped do out[#out + 1] = popped[i] end
            end
            out[1] = redis.call('ZCARD', KEYS[1])
            return out
            """;

    /**
     * KEYS session, pending, messages; ARGV epoch. Deletes the session only if the connection of that epoch was the
     * last to open it and the device is still away (the keys have a time to live): 1, else 0 (it came back).
     */
    static final String EVICT = """
            if redis.call('HGET', KEYS[1], 'epoch') ~= ARGV[1] then return 0 end
            if redis.call('PTTL', KEYS[1]) < 0 then return 0 end
            redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
            return 1
            """;

    /**
     * KEYS session, pending, messages; ARGV epoch, subscriptions, first message id. Writes a connected device's
     * session again after Redis lost it: creates it if absent (message ids then start at ARGV[3], above any id the
     * node still holds from before), or takes over one that no connection holds (it has an expiry: restored from an
     * older snapshot) or that this connection opened; leaves one another connection holds (no expiry, another epoch):
     * 1 written, 0 left.
     */
    static final String REWRITE = """
            local cur = redis.call('HGET', KEYS[1], 'epoch')
            if cur and cur ~= ARGV[1] and redis.call('PTTL', KEYS[1]) < 0 then return 0 end
            if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('HSET', KEYS[1], 'seq', ARGV[3]) end
            redis.call('HSET', KEYS[1], 'epoch', ARGV[1], 'subs', ARGV[2])
            redis.call('PERSIST', KEYS[1])
            redis.call('PERSIST', KEYS[2])
            redis.call('PERSIST', KEYS[3])
            return 1
            """;

    /**
     * KEYS watch; ARGV value ("runId sequence"). Sets it and answers the value it replaced (nil when it was missing).
     * A value of the same run with a higher sequence stays: writes sent over several connections may land out of
     * order, and an older one landing late must not look like data going back in time.
     */
    static final String WATCH = """
            local old = redis.call('GET', KEYS[1])
            if old then
              local run, seq = string.match(old, '^(.*) (%d+)$')
              local newRun, newSeq = string.match(ARGV[1], '^(.*) (%d+)$')
              if run and run == newRun and tonumber(seq) > tonumber(newSeq) then return old end
            end
            redis.call('SET', KEYS[1], ARGV[1])
            return old
            """;

    /** KEYS session; ARGV subscriptions. Replaces them if the session exists: 1, else 0. */
    static final String SAVE_SUBSCRIPTIONS = """
            if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
            redis.call('HSET', KEYS[1], 'subs', ARGV[1])
            return 1
            """;

    /**
     * KEYS session, pending, messages; ARGV max pending, message. Appends with the next id and answers it; -1 without
     * a session, -2 when full. An offline session's new keys get the session's remaining time to live.
     */
    static final String APPEND = """
            if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
            if redis.call('LLEN', KEYS[2]) >= tonumber(ARGV[1]) then return -2 end
            local id = redis.call('HINCRBY', KEYS[1], 'seq', 1)
            redis.call('RPUSH', KEYS[2], id)
            redis.call('HSET', KEYS[3], id, ARGV[2])
            local ttl = redis.call('PTTL', KEYS[1])
            if ttl > 0 then
              redis.call('PEXPIRE', KEYS[2], ttl)
              redis.call('PEXPIRE', KEYS[3], ttl)
            end
            return id
            """;

    /** KEYS pending, messages; ARGV id. */
    static final String REMOVE = """
            redis.call('LREM', KEYS[1], 1, ARGV[1])
            return redis.call('HDEL', KEYS[2], ARGV[1])
            """;

    /**
     * KEYS retained; ARGV topic, message (empty: delete), max retained. 1 stored or deleted, 0 refused (full, and
     * the topic had none).
     */
    static final String RETAIN = """
            if ARGV[2] == '' then
              redis.call('HDEL', KEYS[1], ARGV[1])
              return 1
            end
            if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then
              return 0
            end
            redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
            return 1
            """;

    /**
     * KEYS retained; ARGV filter, glob, limit, cursor, count. One step of the scan for the retained messages whose
     * topic matches the MQTT filter: a single HSCAN from {@code cursor} with {@code COUNT count} and MATCH narrowing
     * the candidates to the glob (wildcard levels as {@code *}), each then matched level by level here, so only
     * matches cross the network. The answer is the next cursor ({@code 0}: done) followed by the matches, at most
     * {@code limit}. One call does bounded work whatever the number of retained topics, so Redis is never held by one
     * long scan; the store calls again with the cursor. Wildcards at the first level skip {@code $} topics
     * (MQTT-4.7.2-1). A filter without wildcards (the common case: a device's own command topic) is a single HGET.
     */
    static final String RETAINED = """
            local function levels(s)
              local out = {}
              for level in string.gmatch(s .. '/', '([^/]*)/') do out[#out + 1] = level end
              return out
            end
            if not string.find(ARGV[1], '[+#]') then
              -- no wildcard: one field, no scan
              local m = redis.call('HGET', KEYS[1], ARGV[1])
              if m then return {'0', m} end
              return {'0'}
            end
            local filter = levels(ARGV[1])
            local first = string.sub(ARGV[1], 1, 1)
            local wildFirst = first == '+' or first == '#'
            local function matches(topic)
              if wildFirst and string.sub(topic, 1, 1) == '$' then return false end
              local t = levels(topic)
              for i = 1, #filter do
                local f = filter[i]
                if f == '#' then return true end
                if i > #t then return false end
                if f ~= '+' and f ~= t[i] then return false end
              end
              return #filter == #t
            end
            local limit = tonumber(ARGV[3])
            local r = redis.call('HSCAN', KEYS[1], ARGV[4], 'MATCH', ARGV[2], 'COUNT', tonumber(ARGV[5]))
            local out = {r[1]}
            local kv = r[2]
            for i = 1, #kv, 2 do
              if matches(kv[i]) then
                out[#out + 1] = kv[i + 1]
                if #out > limit then return out end
              end
            end
            return out
            """;
}
