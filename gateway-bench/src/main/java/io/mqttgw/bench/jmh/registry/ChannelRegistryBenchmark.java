package io.mqttgw.bench.jmh.registry;

import io.mqttgw.core.registry.ChannelRegistry;
import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Connect/disconnect churn on the channel registry from all event-loop threads at once: {@code shards = 1} is one
 * ConcurrentHashMap, the default is the gateway's sharded array. Each operation registers a random client id's
 * channel and removes it again (the CONNECT and close of a session), against a registry pre-filled with
 * {@code clients} sessions. Shared state is thread-safe (the registry); per-thread state is a random generator.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(Threads.MAX)
public class ChannelRegistryBenchmark {
    @Param({"1", "64"})
    public int shards;

    @Param({"100000"})
    public int clients;

    private ChannelRegistry registry;
    private String[] ids;
    private Channel[] channels;

    @Setup(Level.Trial)
    public void setUp() {
        registry = new ChannelRegistry(shards);
        ids = new String[clients];
        channels = new Channel[1024];
        for (int i = 0; i < channels.length; i++) {
            channels[i] = new EmbeddedChannel();
        }
        for (int i = 0; i < clients; i++) {
            ids[i] = "dev-" + i;
            registry.register(ids[i], channels[i % channels.length]);
        }
    }

    @Benchmark
    public boolean registerAndRemove() {
        int i = ThreadLocalRandom.current().nextInt(clients);
        Channel ch = channels[ThreadLocalRandom.current().nextInt(channels.length)];
        registry.register(ids[i], ch);
        return registry.remove(ids[i], ch);
    }

    @Benchmark
    public Channel find() {
        return registry.find(ids[ThreadLocalRandom.current().nextInt(clients)]);
    }
}
