package io.mqttgw.routing.redis;

import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.core.spi.Route;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
import org.redisson.api.RScript;
import org.redisson.api.RScriptAsync;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.Encoder;

/**
 * Builds pipelines of route scripts (EVALSHA, loaded once and again after a failure, since a restarted Redis has
 * forgotten them) and runs them. Flusher thread only. The shutdown's clean-up waits for each of its pipelines here; the
 * resync and dead-node work send theirs as exchanges the flusher does not wait for ({@link RedisExchange}); route
 * writes and deletes go through {@link ShardPipelines}, which keeps one device's operations in order across its
 * pipelines. A route and its entry in the node's index are written, and deleted, by one script: in Redis Cluster the
 * entry is in the index of the route's own slot ({@link RouteKeys#nodeSlotRoutes}), so a route's script touches the
 * route's shard only. The route check uses an instance of its own, on its own thread.
 */
final class RouteBatches {
    private final RedissonClient client;
    private final RouteKeys keys;
    private final String nodeId;
    private final Duration timeout;
    private final BatchOptions options;
    private final String put = sha1(RouteScripts.PUT);
    private final String delete = sha1(RouteScripts.DELETE);
    private final String indexRemove = sha1(RouteScripts.INDEX_REMOVE);
    private final String heartbeat = sha1(RouteScripts.HEARTBEAT);
    /** The scripts every pipeline may run, loaded together. */
    private static final List<String> SCRIPTS = List.of(RouteScripts.PUT, RouteScripts.DELETE,
            RouteScripts.INDEX_REMOVE, RouteScripts.HEARTBEAT);
    /** Redis Cluster: a node's index is split by slot, so each route shares its slot with its index entry. */
    private final boolean cluster;
    private boolean scriptsLoaded;

    RouteBatches(RedissonClient client, RouteKeys keys, String nodeId, Duration timeout) {
        this.client = client;
        this.keys = keys;
        this.nodeId = nodeId;
        this.timeout = timeout;
        this.cluster = client.getConfig().isClusterConfig();
        this.options = BatchOptions.defaults().executionMode(BatchOptions.ExecutionMode.IN_MEMORY)
                .responseTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).retryAttempts(0);
    }

    /** A new pipeline; loads the scripts first if needed (blocking, bounded by the timeout). */
    RBatch begin() throws Exception {
        loadScripts();
        return client.createBatch(options);
    }

    /** Loads the scripts on every master if a failure may have lost them (blocking, bounded by the timeout). */
    void loadScripts() throws Exception {
        if (!scriptsLoaded) {
            await(loadAllAsync());
            scriptsLoaded = true;
        }
    }

    /**
     * What {@code next} builds, once the scripts are on every master: at once when they are, else after an exchange
     * that loads them ({@link #loadScripts} without waiting), for the jobs between flushes.
     */
    RedisExchange<?> withScripts(Callable<RedisExchange<?>> next) throws Exception {
        if (scriptsLoaded) {
            return next.call();
        }
        return RedisExchange.of(loadAllAsync(), loaded -> {
            scriptsLoaded = true;
            return next.call();
        });
    }

    /** Every route script, loaded on every master at once; completes when all are. */
    private CompletableFuture<Void> loadAllAsync() {
        RScript script = client.getScript(StringCodec.INSTANCE);
        List<CompletableFuture<String>> loads = new ArrayList<>();
        for (String text : SCRIPTS) {
            loads.add(script.scriptLoadAsync(text).toCompletableFuture());
        }
        return CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new));
    }

    /** Whether Redis is a Cluster, where a node's index is split by slot ({@link RouteKeys#nodeSlotRoutes}). */
    boolean cluster() {
        return cluster;
    }

    /** A new pipeline without loading the scripts: {@link ShardPipelines} loads them per shard, without waiting. */
    RBatch create() {
        return client.createBatch(options);
    }

    /**
     * Loads every route script on the nodes that serve {@code keys} (in Redis Cluster a script is loaded per node,
     * and a promoted replica has not got the ones its master had), without waiting; completes when all are loaded.
     */
    CompletableFuture<Void> loadScriptsAsync(Collection<String> keys) {
        RScript script = client.getScript(StringCodec.INSTANCE);
        List<CompletableFuture<String>> loads = new ArrayList<>();
        for (String key : keys) {
            for (String text : SCRIPTS) {
                loads.add(script.scriptLoadAsync(key, text).toCompletableFuture());
            }
        }
        return CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new));
    }

    /** A pipeline failed somewhere: the next {@link #begin} loads the scripts again (Redis may have restarted). */
    void failed() {
        scriptsLoaded = false;
    }

    /** Sends the pipeline and waits for its answers; on failure the scripts are loaded again before the next one. */
    void execute(RBatch batch) throws Exception {
        try {
            await(batch.executeAsync());
        } catch (Exception e) {
            scriptsLoaded = false;
            throw e;
        }
    }

    /**
     * Waits for a Redisson future, a little longer than the response timeout it already has. Given up, not
     * cancelled, as {@link ShardPipelines} does: Redisson frees a command's encoded arguments when its attempt ends,
     * and a cancelled attempt may end without freeing them (a leak the tests' detector reported once, of a heartbeat
     * sent to a master frozen and failed over); the command ends by its own timeout, and every script is idempotent or
     * fenced, so one that runs late changes nothing.
     */
    <T> T await(CompletionStage<T> future) throws Exception {
        try {
            return future.toCompletableFuture().get(timeout.toMillis() * 2 + 1000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            scriptsLoaded = false;
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (TimeoutException e) {
            scriptsLoaded = false;
            throw e;
        }
    }

    /** The answer of a command of a pipeline that completed. */
    static <T> T result(RFuture<T> future) {
        return future.toCompletableFuture().getNow(null);
    }

    private static RScriptAsync script(RBatch batch) {
        return batch.getScript(StringCodec.INSTANCE);
    }

    /**
     * The route write and its index entry, one script, so no route exists that dead-node cleanup cannot find; the
     * answer is one of {@code RouteScripts.PUT_*}. In Redis Cluster the entry goes to the index of the route's own
     * slot: the write touches the route's shard only, and a failover of another shard never holds it up.
     */
    RFuture<Long> put(RBatch batch, Route route, boolean resync) {
        return script(batch).evalShaAsync(RScript.Mode.READ_WRITE, put,
                RScript.ReturnType.LONG, List.of(keys.route(route.clientId()), index(nodeId, route.clientId())),
                nodeId, Long.toString(route.epoch()), Long.toString(route.connectedAtMillis()),
                route.remoteAddress(), keys.takeoverChannelPrefix(), route.clientId(), resync ? "1" : "0",
                proofText(route.proof()));
    }

    /** The index that holds {@code node}'s entry for {@code clientId}: per slot in Redis Cluster, else one key. */
    private String index(String node, String clientId) {
        return cluster ? keys.nodeSlotRoutesOf(node, clientId) : keys.nodeRoutes(node);
    }

    /** How the route hash names a proof kind. */
    static String proofText(IdentityProof proof) {
        return proof == IdentityProof.NO_CERTIFICATE ? "no_certificate" : "certificate";
    }

    /** This node's fenced route delete and its index entry, one script; 1 when deleted, 0 when fenced. */
    RFuture<Long> delete(RBatch batch, String clientId, long epoch) {
        return delete(batch, nodeId, clientId, epoch, false);
    }

    /**
     * A fenced delete of {@code node}'s route (this node's, or a dead node's) and of its index entry. An entry read
     * from the single index a node of an earlier version wrote in Redis Cluster ({@code legacy}) is removed from it
     * too, by a script of its own on that key's shard: only the index readers ({@link NodeRouteIndex}) meet those.
     */
    RFuture<Long> delete(RBatch batch, String node, String clientId, long epoch, boolean legacy) {
        String e = Long.toString(epoch);
        RFuture<Long> result = script(batch).evalShaAsync(RScript.Mode.READ_WRITE, delete,
                RScript.ReturnType.LONG, List.of(keys.route(clientId), index(node, clientId)), node, e, clientId);
        if (legacy) {
            removeLegacyEntry(batch, node, clientId, epoch);
        }
        return result;
    }

    /**
     * Removes an entry, fenced by its epoch, from the single index a node of an earlier version wrote in Redis Cluster
     * (outside Cluster that key is the index, and the delete script removed it already).
     */
    void removeLegacyEntry(RBatch batch, String node, String clientId, long epoch) {
        if (cluster) {
            script(batch).evalShaAsync(RScript.Mode.READ_WRITE, indexRemove,
                    RScript.ReturnType.LONG, List.of(keys.nodeRoutes(node)), clientId, Long.toString(epoch));
        }
    }

    /**
     * Refreshes the heartbeat and this node's membership in the node set; the answer is the value the heartbeat
     * replaced, null when the key was missing. Two commands, not a pipeline: a Redisson pipeline that finds no master
     * for a slot (the heartbeat's master being failed over) fails without freeing its encoded commands. Their
     * arguments are encoded as heap buffers ({@link #HEAP_STRINGS}).
     */
    CompletableFuture<String> heartbeat(String value, Duration ttl) {
        CompletableFuture<String> beat = client.getScript(HEAP_STRINGS).<String>evalShaAsync(
                RScript.Mode.READ_WRITE, heartbeat, RScript.ReturnType.VALUE, List.of(keys.alive(nodeId)), value,
                Long.toString(ttl.toMillis())).toCompletableFuture();
        CompletableFuture<Boolean> member = client.getSet(keys.nodes(), HEAP_STRINGS).addAsync(nodeId)
                .toCompletableFuture();
        return beat.thenCombine(member, (replaced, added) -> replaced);
    }

    /**
     * Strings as {@link StringCodec} writes them, but each encoded into an unpooled heap buffer instead of a pooled
     * direct one, for the heartbeat. Redisson frees a command's encoded arguments when the command ends, and not every
     * end during a Cluster failover does (twice in RedisClusterIT a heartbeat command written to the failing master was
     * never released; read in Redisson 4.7.0, not observed: a command written to a connection that then dies ends only
     * by its response timer, which the client's shutdown stops): the heartbeat is the one command sent on a schedule
     * whatever state Redis is in. A heap buffer Redisson forgets is garbage like any other object; a pooled one is
     * memory the allocator never gets back. Two short strings a beat cost nothing to copy.
     */
    static final StringCodec HEAP_STRINGS = new StringCodec() {
        private final Encoder encoder = in -> Unpooled.wrappedBuffer(in.toString().getBytes(StandardCharsets.UTF_8));

        @Override
        public Encoder getValueEncoder() {
            return encoder;
        }
    };

    static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
