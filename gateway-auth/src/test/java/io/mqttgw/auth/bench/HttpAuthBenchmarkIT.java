package io.mqttgw.auth.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mqttgw.auth.http.HttpAuthenticatorProvider;
import io.mqttgw.auth.testkit.AuthServiceStub;
import io.mqttgw.auth.testkit.AuthServiceStub.Reply;
import io.mqttgw.core.bootstrap.Gateway;
import io.mqttgw.core.spi.AuthRequest;
import io.mqttgw.core.spi.Authenticator;
import io.mqttgw.core.spi.ProviderContext;
import io.mqttgw.core.testkit.RawMqttConnection;
import io.mqttgw.core.testkit.TestGateway;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * CONNECTs per second with the HTTP auth service in the path, cold and warm cache, and the latency the
 * authentication adds: at the Authenticator (async-http-client to a JDK HTTP server on 127.0.0.1) and end to end
 * (CONNECT to CONNACK over the gateway's plain TCP listener, so TLS cost does not hide the auth cost). Prints a
 * table; run with -Dauth.bench=true (see BENCHMARKS.md).
 */
@EnabledIfSystemProperty(named = "auth.bench", matches = "true")
class HttpAuthBenchmarkIT {
    static final int AUTH_DEVICES = Integer.getInteger("auth.bench.devices", 20_000);
    static final int WINDOW = Integer.getInteger("auth.bench.window", 1000);
    static final int E2E_DEVICES = Integer.getInteger("auth.bench.e2e-devices", 4000);
    static final int E2E_CLIENTS = Integer.getInteger("auth.bench.e2e-clients", 8);

    @TempDir
    Path dir;

    @Test
    void measure() throws Exception {
        List<String> rows = new ArrayList<>();
        try (AuthServiceStub service = AuthServiceStub.start(call -> Reply.allow())) {
            rows.addAll(authenticatorLevel(service));
            rows.addAll(endToEnd(service));
        }
        String table =
                "| scenario | operations | per second | p50 | p99 | max |\n| --- | --- | --- | --- | --- | --- |\n"
                + String.join("\n", rows) + "\n";
        System.out.println(table);
        Files.writeString(Path.of("target", "auth-benchmark.md"), table);
    }

    private List<String> authenticatorLevel(AuthServiceStub service) throws Exception {
        List<String> rows = new ArrayList<>();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        Authenticator auth = new HttpAuthenticatorProvider().create(new ProviderContext(TestGateway.tcp(dir)
                .with("auth.provider", "http").with("auth.http.url", service.url("/auth"))
                .with("auth.http.cache.max-entries", Integer.toString(AUTH_DEVICES * 2)).config(), meters));
        try {
            run(auth, "warm-up", 5000, "warmup-", WINDOW);
            rows.add(run(auth, "Authenticator, cold cache, one call at a time (latency of one call)", 2000, "one-",
                    1));
            rows.add(run(auth, "Authenticator, cold cache, " + WINDOW + " calls in flight (throughput; latency "
                    + "includes waiting behind the others)", AUTH_DEVICES, "cold-", WINDOW));
            rows.add(run(auth, "Authenticator, warm cache (no call)", AUTH_DEVICES, "cold-", WINDOW));
            assertEquals(AUTH_DEVICES + 7000, service.callCount());
        } finally {
            auth.close();
        }
        return rows;
    }

    private String run(Authenticator auth, String name, int n, String prefix, int inFlight) throws Exception {
        long[] latency = new long[n];
        Semaphore window = new Semaphore(inFlight);
        AtomicInteger refused = new AtomicInteger();
        List<CompletableFuture<?>> all = new ArrayList<>(n);
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            window.acquire();
            int idx = i;
            long t0 = System.nanoTime();
            all.add(auth.authenticate(new AuthRequest(prefix + i, "user", "pw".getBytes(StandardCharsets.UTF_8),
                    null, null, new InetSocketAddress("127.0.0.1", 40000), "tcp")).toCompletableFuture()
                    .whenComplete((r, e) -> {
                        latency[idx] = System.nanoTime() - t0;
                        if (e != null || !r.allowed()) {
                            refused.incrementAndGet();
                        }
                        window.release();
                    }));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        long elapsed = System.nanoTime() - start;
        assertEquals(0, refused.get(), name + ": refused");
        return row(name, n, elapsed, latency);
    }

    private List<String> endToEnd(AuthServiceStub service) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Gateway baseline = TestGateway.tcp(dir.resolve("base")).with("uplink.sink", "discard").start()) {
            connectAll(baseline, "warm-", E2E_DEVICES);
            rows.add(connectAll(baseline, "base-", E2E_DEVICES).replace("NAME",
                    "end to end, auth.provider certificate (no HTTP; the baseline)"));
        }
        try (Gateway gateway = TestGateway.tcp(dir.resolve("http")).with("uplink.sink", "discard")
                .with("auth.provider", "http").with("auth.http.url", service.url("/auth")).start()) {
            connectAll(gateway, "warm-", E2E_DEVICES);
            rows.add(connectAll(gateway, "e2e-", E2E_DEVICES).replace("NAME",
                    "end to end, auth.provider http, cold cache"));
            rows.add(connectAll(gateway, "e2e-", E2E_DEVICES).replace("NAME",
                    "end to end, auth.provider http, warm cache"));
        }
        return rows;
    }

    /** CONNECT to CONNACK for {@code n} devices over {@link #E2E_CLIENTS} connections at a time; a row. */
    private String connectAll(Gateway gateway, String prefix, int n) throws Exception {
        long[] latency = new long[n];
        AtomicInteger next = new AtomicInteger();
        ExecutorService clients = Executors.newFixedThreadPool(E2E_CLIENTS);
        long start = System.nanoTime();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < E2E_CLIENTS; c++) {
                done.add(clients.submit(() -> {
                    for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                        try (RawMqttConnection device = RawMqttConnection.tcp(gateway.tcpPort())) {
                            long t0 = System.nanoTime();
                            int code = device.connect(prefix + i, 60);
                            latency[i] = System.nanoTime() - t0;
                            if (code != 0) {
                                throw new AssertionError(prefix + i + " refused with " + code);
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(300, TimeUnit.SECONDS);
            }
        } finally {
            clients.shutdownNow();
        }
        return row("NAME", n, System.nanoTime() - start, latency);
    }

    private static String row(String name, int n, long elapsedNanos, long[] latency) {
        long[] sorted = latency.clone();
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, "| %s | %,d | %,.0f | %s | %s | %s |", name, n,
                n / (elapsedNanos / 1e9), ms(sorted[n / 2]), ms(sorted[(int) (n * 0.99)]), ms(sorted[n - 1]));
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.3f ms", nanos / 1e6);
    }
}
