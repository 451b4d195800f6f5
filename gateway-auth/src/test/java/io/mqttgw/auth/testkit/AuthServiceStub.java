package io.mqttgw.auth.testkit;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A real HTTP auth service (the JDK's HTTP server) on 127.0.0.1, answering each request as the test's responder
 * says, after the responder's delay; a delayed answer holds no thread (it is sent by a timer), so a thousand calls
 * can wait at once. Records every request and the peak of requests awaiting their answer.
 */
public final class AuthServiceStub implements AutoCloseable {
    /** One request as the service saw it. */
    public record Call(String method, String uri, Map<String, List<String>> headers, String body) {
        public String header(String name) {
            List<String> v = headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(Map.Entry::getValue).findFirst().orElse(List.of());
            return v.isEmpty() ? null : v.get(0);
        }
    }

    /** What to answer, and after how long. */
    public record Reply(int status, String body, Map<String, String> headers, long delayMillis) {
        public static Reply json(String body) {
            return new Reply(200, body, Map.of(), 0);
        }

        public static Reply allow() {
            return json("{\"allow\":true}");
        }

        public static Reply status(int status) {
            return new Reply(status, "", Map.of(), 0);
        }

        public Reply after(long millis) {
            return new Reply(status, body, headers, millis);
        }

        public Reply withHeader(String name, String value) {
            Map<String, String> h = new java.util.HashMap<>(headers);
            h.put(name, value);
            return new Reply(status, body, Map.copyOf(h), delayMillis);
        }
    }

    static {
        // the JDK server closes kept-alive connections beyond 200 idle ones; a service behind a pool of 1000
        // connections keeps them all
        if (System.getProperty("sun.net.httpserver.maxIdleConnections") == null) {
            System.setProperty("sun.net.httpserver.maxIdleConnections", "10000");
        }
        // it writes an answer's head and body separately: with Nagle on, the body waits ~40 ms for a delayed ACK
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private final HttpServer server;
    private final ExecutorService handlers;
    private final ScheduledExecutorService timer;
    private final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger awaiting = new AtomicInteger();
    private final AtomicInteger peakAwaiting = new AtomicInteger();
    private volatile Function<Call, Reply> responder;

    private AuthServiceStub(int port, Function<Call, Reply> responder) throws IOException {
        this.responder = responder;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 8192);
        this.handlers = Executors.newFixedThreadPool(8, r -> {
            Thread t = new Thread(r, "auth-stub");
            t.setDaemon(true);
            return t;
        });
        this.timer = Executors.newScheduledThreadPool(2, r -> {
            Thread t = new Thread(r, "auth-stub-timer");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(handlers);
        server.createContext("/", this::handle);
        server.start();
    }

    /** A service on a free port. */
    public static AuthServiceStub start(Function<Call, Reply> responder) throws IOException {
        return new AuthServiceStub(0, responder);
    }

    /** A service on {@code port}, e.g. one coming back where a stopped one was. */
    public static AuthServiceStub startOn(int port, Function<Call, Reply> responder) throws IOException {
        return new AuthServiceStub(port, responder);
    }

    public int port() {
        return server.getAddress().getPort();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + port() + path;
    }

    public void respond(Function<Call, Reply> responder) {
        this.responder = responder;
    }

    public List<Call> calls() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }

    public int callCount() {
        return calls.size();
    }

    public int peakAwaiting() {
        return peakAwaiting.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String body;
        try (InputStream in = exchange.getRequestBody()) {
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Call call = new Call(exchange.getRequestMethod(), exchange.getRequestURI().toString(),
                Map.copyOf(exchange.getRequestHeaders()), body);
        calls.add(call);
        peakAwaiting.accumulateAndGet(awaiting.incrementAndGet(), Math::max);
        Reply reply;
        try {
            reply = responder.apply(call);
        } catch (RuntimeException e) {
            reply = new Reply(500, e.toString(), Map.of(), 0);
        }
        Reply r = reply;
        if (r.delayMillis() <= 0) {
            send(exchange, r);
        } else {
            timer.schedule(() -> send(exchange, r), r.delayMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void send(HttpExchange exchange, Reply reply) {
        awaiting.decrementAndGet();
        try {
            byte[] bytes = reply.body().getBytes(StandardCharsets.UTF_8);
            reply.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(reply.status(), bytes.length == 0 ? -1 : bytes.length);
            if (bytes.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        } catch (IOException e) {
            // the client gave up (its timeout); nothing to answer
        } finally {
            exchange.close();
        }
    }

    /** Stops at once: open connections are closed, delayed answers are dropped. */
    @Override
    public void close() {
        server.stop(0);
        timer.shutdownNow();
        handlers.shutdownNow();
    }
}
