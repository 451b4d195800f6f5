package io.mqttgw.bench.jmh.protocol;

import io.mqttgw.core.topic.TopicFilters;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** {@link TopicFilters#matches} for the filters devices use, matching and not matching. Single-threaded state. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TopicFiltersBenchmark {
    @Param({"devices/dev-123456/commands", "devices/+/commands", "devices/#", "devices/dev-999999/commands"})
    public String filter;

    private final String topic = "devices/dev-123456/commands";

    @Benchmark
    public boolean matches() {
        return TopicFilters.matches(filter, topic);
    }
}
