package io.mqttgw.routing.ticket;

import io.mqttgw.core.spi.TicketKeySource;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.redisson.api.RBucket;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;

/**
 * Session-ticket keys shared through Redis: one key per epoch under {@code <prefix>:tls:ticket-key:<epoch>}. The first
 * node to ask for an epoch stores its own random candidate there (SET NX with a TTL, so the key disappears once no
 * ticket made with it can be presented any more); every node then reads the winner. Two asynchronous calls, never a
 * blocking one; when Redis does not answer, the returned stage fails and the rotation keeps its keys. The material is
 * held in Redis's memory and this node's only (Redis persistence aside: see the README's advice). Thread-safe.
 */
public final class RedisTicketKeySource implements TicketKeySource {
    private final RedissonClient client;
    private final String keyPrefix;
    private final String description;

    public RedisTicketKeySource(RedissonClient client, String keyPrefix, String description) {
        this.client = client;
        this.keyPrefix = keyPrefix;
        this.description = description;
    }

    /** The Redis key of one epoch's ticket key. */
    String keyOf(long epoch) {
        return keyPrefix + ":tls:ticket-key:" + epoch;
    }

    @Override
    public CompletionStage<byte[]> keyFor(long epoch, byte[] candidate, Duration keepFor) {
        RBucket<byte[]> bucket = client.getBucket(keyOf(epoch), ByteArrayCodec.INSTANCE);
        return bucket.setIfAbsentAsync(candidate, keepFor).thenCompose(stored -> bucket.getAsync());
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public boolean shared() {
        return true;
    }

    @Override
    public void close() {
        client.shutdown();
    }
}
