package io.mqttgw.core.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.mqttgw.core.config.GatewayConfig;
import io.mqttgw.core.events.EventLog;
import io.mqttgw.core.testkit.TestGateway;
import io.netty.channel.EventLoop;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the admin plane releases the connections it still holds when the node stops. */
class AdminServerShutdownTest {
    @TempDir
    Path dir;

    /*
     * The admin loop may be busy (a scrape, an operation, a listener's close) when its shutdown begins; it must still
     * close the connections it holds before it stops, or their sockets stay open after the node is gone. The task
     * below holds the loop past the point where a loop checks whether it is shutting down, until the shutdown has
     * begun.
     */
    @Test
    void closesTheConnectionsOfItsLoopWhenItWasBusyAsItsShutdownBegan() throws Exception {
        GatewayConfig config = TestGateway.tcp(dir).config();
        AdminServer server = new AdminServer(config.admin(), new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
                () -> null, List.of(), null, null, new EventLog(config.lifecycleLogRate()),
                config.mqtt().topicLimits(), null);
        try (Socket scraper = new Socket()) {
            scraper.connect(new InetSocketAddress("127.0.0.1", server.port()), 10_000);
            scraper.setSoTimeout(30_000);
            OutputStream out = scraper.getOutputStream();
            out.write("GET /health/live HTTP/1.1\r\nHost: gateway\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = scraper.getInputStream();
            String head = readHead(in);
            assertTrue(head.startsWith("HTTP/1.1 200"), head);
            in.readNBytes(contentLength(head));

            EventLoop loop = server.group().next();
            CountDownLatch busy = new CountDownLatch(1);
            AtomicBoolean sawShutdownBegin = new AtomicBoolean();
            loop.execute(() -> {
                busy.countDown();
                long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!loop.isShuttingDown() && System.nanoTime() < giveUp) {
                    Thread.onSpinWait();
                }
                sawShutdownBegin.set(loop.isShuttingDown());
            });
            assertTrue(busy.await(30, TimeUnit.SECONDS), "the loop runs the task");
            server.close();

            assertTrue(loop.isTerminated(), "the loop stopped within the shutdown's wait");
            assertTrue(sawShutdownBegin.get(), "the shutdown began while the loop was busy");
            scraper.setSoTimeout(10_000);
            assertEquals(-1, in.read(), "the scraper saw its connection end");
        } finally {
            server.close();
        }
    }

    private static String readHead(InputStream in) throws Exception {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.write(b);
        }
        return head.toString(StandardCharsets.US_ASCII);
    }

    private static int contentLength(String head) {
        for (String line : head.split("\r\n")) {
            if (line.regionMatches(true, 0, "content-length:", 0, 15)) {
                return Integer.parseInt(line.substring(15).trim());
            }
        }
        return 0;
    }
}
