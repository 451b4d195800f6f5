package io.mqttgw.core.testkit;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import io.netty.channel.EventLoop;
import io.netty.util.internal.ThreadExecutorMap;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingMethod;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Installs BlockHound once per test JVM ({@link #install}) and records every blocking call it sees on an event loop,
 * for {@link EventLoopBlockingExtension} to fail the test with. BlockHound needs
 * {@code -XX:+AllowRedefinitionToAddDeleteMethods} on JDK 13+, which the build passes. The integrations found by
 * ServiceLoader apply first, among them Netty's (in netty-common), which allows what Netty itself must do (task queue
 * waits, TLS delegated tasks, pool arena locks) and marks every Netty thread non-blocking; this one applies last and
 * narrows that to the threads that run an event loop: Netty's thread factory also makes plain pool threads (Redisson's
 * callback executor), whose idle wait for a task is not a stall; the hand-offs inside libraries it allows are one
 * list ({@link #HAND_OFFS}). Recording rather than throwing keeps the code under
 * test on its normal path, so a test fails for the blocking call and not for a side effect of an unexpected error.
 * Thread-safe.
 */
public final class EventLoopBlockingRecorder implements BlockHoundIntegration {
    private static final int MAX_RECORDED = 20;
    private static final ConcurrentLinkedQueue<String> CALLS = new ConcurrentLinkedQueue<>();
    private static final AtomicInteger COUNT = new AtomicInteger();
    private static final Set<String> PLACES = ConcurrentHashMap.newKeySet();
    private static boolean installed;
    /** Set on a thread while the non-blocking-thread predicate answers for it ({@link #withoutRecursion}). */
    private static final ThreadLocal<Boolean> DECIDING = new ThreadLocal<>();

    /**
     * The places inside libraries where BlockHound sees a thread park on an event loop that are hand-offs, not
     * stalls: each takes a lock that another thread holds only for one insertion, removal or lookup, and never waits
     * for I/O, for room or for other work. Every event loop stays watched, the Redis and HTTP clients' own included,
     * because the gateway's code runs on them: the Redis modules' stages complete, and their pub/sub messages arrive,
     * on the Redis client's event loops (and continue there until they hand a device's work to its loop), the HTTP
     * authenticator's answers on its client's. A blocking call of ours there stalls every Redis or auth call of the
     * node, so the guard must see it; a place is added here only with what it is and where it was seen.
     */
    private static final List<HandOff> HAND_OFFS = List.of(
            // Handing a task to a JDK timer pool takes that pool's queue lock for an insertion, and parks only while
            // a worker holds it for its own insertion or removal. Seen on the HiveMQ test client's loops (RxJava
            // hands each received PUBLISH to its computation scheduler). The same lock for a removal: a future
            // bounded with orTimeout that completes in time cancels its timeout task, which the JDK's delayer takes
            // out of its queue at once. Seen on a Redis client's loop completing a route lookup that an operator
            // request waited for (ForwardedOperationsIT).
            new HandOff("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue", "offer", "remove"),
            // Handing a task to a JDK thread pool offers it to the pool's queue without a timeout: it never waits for
            // room (a full pool rejects), and parks only while a worker holds the queue's lock for its own take. Seen
            // on a Redis client's event loop handing a new connection to its executor (RedisClusterIT, CI on a
            // loaded machine).
            new HandOff("java.util.concurrent.ThreadPoolExecutor", "execute"),
            // The Kafka producer's buffer pool guards its free list with a lock that its sender thread also takes to
            // give a batch's buffer back; a send on the event loop can meet that hand-off. It never waits for memory
            // there: the uplink sink runs with max.block.ms=0 (exhaustion throws) and bounds its pending bytes
            // itself. Seen once in KafkaLeaderFailoverIT (CI, 2026-11-24).
            new HandOff("org.apache.kafka.clients.producer.internals.BufferPool", "allocate"),
            // Netty's adaptive allocator, growing its set of magazines under contention, retires a magazine under
            // that magazine's write lock, which another thread holds only for one allocation from it. Seen in
            // NodeLivenessIT on a loaded machine, on a Redis client's event loop.
            new HandOff("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup", "tryExpandMagazines"),
            // Redisson's connection pool queues waiters for a connection in a list guarded by a lock held only for
            // one link or unlink; its own event loop, giving a connection back, can meet another thread's insertion
            // there. Seen in NodeLivenessIT on a loaded machine.
            new HandOff("org.redisson.misc.FastRemovalQueue$DoublyLinkedList", "add", "remove", "removeFirst",
                    "moveToTail", "clear"),
            // Redisson builds the entry of each cluster master it discovers on its own event loop (the callback of
            // the connect in buildMasterEntry), and the entry's pools ask the logging registry for their loggers: the
            // first time under the registry's write lock, so two of the client's loops building entries at once wait
            // on each other there for one insertion. Only there: an event loop of ours creating a logger stays an
            // error (the Kafka producer's partitioner did, see KafkaUplinkSinkProvider). Seen in RedisClusterIT (CI,
            // 2026-11-28).
            new HandOff("org.redisson.connection.ClusterConnectionManager", "lambda$buildMasterEntry$0"),
            // Redisson builds each new connection's pipeline on its own event loop, and its handlers (the command
            // encoder and decoders) take their loggers in their constructors: a logger not yet cached (the first
            // pub/sub connection's decoder) is looked up under the registry's read lock, which waits while another
            // thread inserts a logger. Only the pipeline building of the Redis client, none of our code, runs there.
            // Seen in gateway-bridge-kafka's integration tests (CI, 2026-11-29); RedisClientLoopGuardIT makes it
            // happen on every run.
            new HandOff("org.redisson.client.handler.RedisChannelInitializer", "initChannel"));

    /** Installs BlockHound with the ServiceLoader integrations, then this one; once per JVM. */
    static synchronized void install() {
        if (installed) {
            return;
        }
        BlockHound.Builder builder = BlockHound.builder();
        for (BlockHoundIntegration integration : ServiceLoader.load(BlockHoundIntegration.class)) {
            builder.with(integration);
        }
        builder.with(new EventLoopBlockingRecorder()).install();
        installed = true;
    }

    @Override
    public void applyTo(BlockHound.Builder builder) {
        builder.nonBlockingThreadPredicate(current -> {
            Predicate<Thread> eventLoops = current.and(EventLoopBlockingRecorder::runsAnEventLoop);
            return thread -> withoutRecursion(eventLoops, thread);
        });
        builder.blockingMethodCallback(EventLoopBlockingRecorder::record);
        for (HandOff handOff : HAND_OFFS) {
            for (String method : handOff.methods()) {
                builder.allowBlockingCallsInside(handOff.type(), method);
            }
        }
    }

    /** BlockHound asks this on the thread itself, once per thread. */
    private static boolean runsAnEventLoop(Thread thread) {
        return thread != Thread.currentThread() || ThreadExecutorMap.currentExecutor() instanceof EventLoop;
    }

    /**
     * BlockHound tests {@code predicate} while it initialises its per-thread state: a class loaded during the answer
     * (the first time any thread gets here, e.g. a client's timer thread before any event loop ran) goes through the
     * class loader, which BlockHound instruments to read that same state, which tests the predicate again: an
     * unbounded recursion that killed the thread with a StackOverflowError. The nested question, asked only by that
     * class loading, is answered "may block" (class loading is allowed anywhere); the outer answer then replaces it.
     */
    private static boolean withoutRecursion(Predicate<Thread> predicate, Thread thread) {
        if (DECIDING.get() != null) {
            return false;
        }
        DECIDING.set(Boolean.TRUE);
        try {
            return predicate.test(thread);
        } finally {
            DECIDING.remove();
        }
    }

    private static void record(BlockingMethod method) {
        COUNT.incrementAndGet();
        Throwable t = new Throwable("blocking call " + method + " on " + Thread.currentThread().getName());
        // one trace per place (the blocking method and the first caller outside the JDK and BlockHound), so a
        // report names every distinct place rather than the first one twenty times
        String where = method.toString();
        for (StackTraceElement e : t.getStackTrace()) {
            String c = e.getClassName();
            if (!c.startsWith("java.") && !c.startsWith("jdk.") && !c.startsWith("sun.")
                    && !c.startsWith("reactor.blockhound.") && !c.equals(EventLoopBlockingRecorder.class.getName())) {
                where += " at " + e;
                break;
            }
        }
        if (PLACES.size() < MAX_RECORDED && PLACES.add(where)) {
            StringWriter trace = new StringWriter();
            t.printStackTrace(new PrintWriter(trace));
            CALLS.add(trace.toString());
        }
    }

    /**
     * The blocking calls since the last call: their count, and one trace per place (at most {@value #MAX_RECORDED}).
     */
    static Drained drain() {
        List<String> traces = new ArrayList<>();
        for (String t = CALLS.poll(); t != null; t = CALLS.poll()) {
            traces.add(t);
        }
        PLACES.clear();
        return new Drained(COUNT.getAndSet(0), traces);
    }

    /** Methods of {@code type} (a binary class name) inside which a park is a hand-off. */
    private record HandOff(String type, String... methods) {
    }

    record Drained(int count, List<String> traces) {
    }
}
