package io.mqttgw.bench.sim.device;

import io.mqttgw.bench.sim.config.GatewayNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The balancer's health check: every {@code interval} each node's ready URL is asked (200 puts the node in, any
 * other answer or no answer within the interval takes it out), or, for a node without one, its port is connected
 * to. Runs on one daemon thread of its own, so a slow node delays the checks, never a device's event loop.
 */
public final class NodeHealth implements AutoCloseable {
    private final Balancer balancer;
    private final Duration timeout;
    private final HttpClient http;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bench-node-health");
        t.setDaemon(true);
        return t;
    });

    public NodeHealth(Balancer balancer, Duration interval) {
        this.balancer = balancer;
        this.timeout = interval.compareTo(Duration.ofSeconds(2)) < 0 ? interval : Duration.ofSeconds(2);
        this.http = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
        timer.scheduleWithFixedDelay(this::checkAll, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Checks every node once and applies the results; public for tests that need a check now. */
    public void checkAll() {
        for (int i = 0; i < balancer.size(); i++) {
            if (healthy(balancer.node(i))) {
                balancer.markUp(i);
            } else {
                balancer.markDown(i);
            }
        }
    }

    private boolean healthy(GatewayNode node) {
        if (node.ready() == null) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(node.host(), node.port()), (int) timeout.toMillis());
                return true;
            } catch (IOException e) {
                return false;
            }
        }
        try {
            HttpResponse<Void> r = http.send(HttpRequest.newBuilder(node.ready()).timeout(timeout).GET().build(),
                    HttpResponse.BodyHandlers.discarding());
            return r.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
