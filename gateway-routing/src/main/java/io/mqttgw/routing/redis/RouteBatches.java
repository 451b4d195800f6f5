package io.mqttgw.routing.redis;

import io.mqttgw.core.identity.IdentityProof;
import io.mqttgw.core.spi.Route;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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

/**
 * Builds pipelines of route scripts (EVALSHA, loaded once and again after a failure, since a restarted Redis has
 * forgotten them) and runs them. Flusher thread only. The resync, dead-node and shutdown work waits for each of its
 * pipelines here; route writes and deletes go through {@link ShardPipelines}, which keeps one device's operations in
 * order across its pipelines.
 */
final class RouteBatches {
    private final RedissonClient client;
    private final RouteKeys keys;
    private final String nodeId;
    private final Duration timeout;
    private final BatchOptions options;
    private final String put = sha1(RouteScripts.PUT);
    private final String delete = sha1(RouteScripts.DELETE);
    private final String indexAdd = sha1(RouteScripts.INDEX_ADD);
    private final String indexRemove = sha1(RouteScripts.INDEX_REMOVE);
    private final String heartbeat = sha1(RouteScripts.HEARTBEAT);
    /** Redis Cluster: every script touches keys of one slot only, so the route write and its index entry split. */
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
        if (!scriptsLoaded) {
            RScript script = client.getScript(StringCodec.INSTANCE);
            for (String text : List.of(RouteScripts.PUT, RouteScripts.DELETE, RouteScripts.INDEX_ADD,
                    RouteScripts.INDEX_REMOVE, RouteScripts.HEARTBEAT)) {
                await(script.scriptLoadAsync(text));
            }
            scriptsLoaded = true;
        }
        return client.createBatch(options);
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
            for (String text : List.of(RouteScripts.PUT, RouteScripts.DELETE, RouteScripts.INDEX_ADD,
                    RouteScripts.INDEX_REMOVE, RouteScripts.HEARTBEAT)) {
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

    /** Waits for a Redisson future, a little longer than the response timeout it already has. */
    <T> T await(RFuture<T> future) throws Exception {
        try {
            return future.toCompletableFuture().get(timeout.toMillis() * 2 + 1000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            scriptsLoaded = false;
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (TimeoutException e) {
            scriptsLoaded = false;
            future.cancel(false);
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
     * The route write and its index entry, one script (outside Redis Cluster); the answer is one of
     * {@code RouteScripts.PUT_*}. In Cluster, where the two keys live in different slots, the index entry is written
     * first: a failure between the two leaves an index entry without a route, which cleanup and resync skip (their
     * deletes are fenced), never a route that no index names.
     */
    RFuture<Long> put(RBatch batch, Route route, boolean resync) {
        String epoch = Long.toString(route.epoch());
        List<Object> routeKeys;
        if (cluster) {
            script(batch).evalShaAsync(RScript.Mode.READ_WRITE, indexAdd,
                    RScript.ReturnType.LONG, List.of(keys.nodeRoutes(nodeId)), route.clientId(), epoch);
            routeKeys = List.of(keys.route(route.clientId()));
        } else {
            routeKeys = List.of(keys.route(route.clientId()), keys.nodeRoutes(nodeId));
        }
        return script(batch).evalShaAsync(RScript.Mode.READ_WRITE, put,
                RScript.ReturnType.LONG, routeKeys,
                nodeId, epoch, Long.toString(route.connectedAtMillis()),
                route.remoteAddress(), keys.takeoverChannelPrefix(), route.clientId(), resync ? "1" : "0",
                proofText(route.proof()));
    }

    /** How the route hash names a proof kind. */
    static String proofText(IdentityProof proof) {
        return proof == IdentityProof.NO_CERTIFICATE ? "no_certificate" : "certificate";
    }

    /** This node's fenced route delete and its index entry; 1 when deleted, 0 when fenced. */
    RFuture<Long> delete(RBatch batch, String clientId, long epoch) {
        return delete(batch, nodeId, clientId, epoch);
    }

    /** A fenced delete of {@code node}'s route (this node's, or a dead node's) and of its index entry. */
    RFuture<Long> delete(RBatch batch, String node, String clientId, long epoch) {
        String e = Long.toString(epoch);
        RFuture<Long> result = script(batch).evalShaAsync(RScript.Mode.READ_WRITE, delete,
                RScript.ReturnType.LONG, List.of(keys.route(clientId)), node, e);
        script(batch).evalShaAsync(RScript.Mode.READ_WRITE, indexRemove,
                RScript.ReturnType.LONG, List.of(keys.nodeRoutes(node)), clientId, e);
        return result;
    }

    /** Refreshes the heartbeat; the answer is the value it replaced, null when the key was missing. */
    RFuture<String> heartbeat(RBatch batch, String value, Duration ttl) {
        return script(batch).evalShaAsync(RScript.Mode.READ_WRITE, heartbeat,
                RScript.ReturnType.VALUE, List.of(keys.alive(nodeId)), value,
                Long.toString(ttl.toMillis()));
    }

    static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
