package io.mqttgw.routing.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.resolver.DefaultAddressResolverGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.lang.reflect.Field;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.slf4j.Log4jLoggerFactory;
import org.junit.jupiter.api.Test;
import org.redisson.client.RedisClient;
import org.redisson.client.RedisClientConfig;
import org.redisson.client.RedisConnection;

/**
 * The event-loop blocking guard on a Redis client's own loop, where the gateway's Redis stages complete: Redisson
 * builds each new connection's pipeline there, and its handlers ask the logging registry for their loggers, which
 * waits while another thread inserts a logger. That wait is one insertion long and is allowed; anything else parking
 * there still fails the test. The registry's write lock is held here while the connection is built, so the wait
 * happens every run, not once in a hundred CI runs as it did (CI, 2026-11-29).
 */
class RedisClientLoopGuardIT extends RedisServerTests {
    @Test
    void redisClientBuildingAConnectionWhileAnotherThreadCreatesALoggerIsNotAStall() throws Exception {
        EventLoopGroup loops = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("redisson-netty", true),
                NioIoHandler.newFactory());
        RedisClient client = RedisClient.create(new RedisClientConfig().setAddress(redis.address()).setGroup(loops)
                .setResolverGroup(DefaultAddressResolverGroup.INSTANCE));
        try {
            Thread loop = loops.submit(Thread::currentThread).get(30, TimeUnit.SECONDS);
            // a first connection loads the client's classes, as a running node's client has long done
            RedisConnection first = client.connectAsync().toCompletableFuture().get(30, TimeUnit.SECONDS);
            first.closeAsync().get(30, TimeUnit.SECONDS);
            RedisConnection connection;
            ReentrantReadWriteLock registry = uncachedLoggerRegistryLock();
            registry.writeLock().lock();
            try {
                var connecting = client.connectAsync().toCompletableFuture();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!registry.hasQueuedThread(loop) && !connecting.isDone() && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                assertTrue(registry.hasQueuedThread(loop),
                        "the client's loop waits for the logging registry while it builds the connection");
                registry.writeLock().unlock();
                connection = connecting.get(30, TimeUnit.SECONDS);
            } finally {
                if (registry.isWriteLockedByCurrentThread()) {
                    registry.writeLock().unlock();
                }
            }
            connection.closeAsync().get(30, TimeUnit.SECONDS);
        } finally {
            client.shutdown();
            loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }

    /**
     * The lock of log4j's logger registry, which it takes to insert a new logger and to look one up, after emptying
     * the SLF4J binding's cache in front of it: a running node's client asks the registry only for a logger not yet
     * cached (the first pub/sub connection's, in the CI run), and this makes every logger of the next connection one.
     */
    private static ReentrantReadWriteLock uncachedLoggerRegistryLock() throws ReflectiveOperationException {
        Log4jLoggerFactory binding = (Log4jLoggerFactory) org.slf4j.LoggerFactory.getILoggerFactory();
        Set<org.apache.logging.log4j.spi.LoggerContext> contexts = binding.getLoggerContexts();
        assertEquals(1, contexts.size(), "one logging context in the test JVM");
        org.apache.logging.log4j.spi.LoggerContext context = contexts.iterator().next();
        binding.getLoggersInContext(context).clear();
        Field registryField = LoggerContext.class.getDeclaredField("loggerRegistry");
        registryField.setAccessible(true);
        Object registry = registryField.get(context);
        Field lockField = registry.getClass().getDeclaredField("lock");
        lockField.setAccessible(true);
        return (ReentrantReadWriteLock) lockField.get(registry);
    }
}
