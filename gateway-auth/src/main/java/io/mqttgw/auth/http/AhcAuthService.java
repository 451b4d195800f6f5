package io.mqttgw.auth.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.mqttgw.core.spi.AuthRequest;
import io.mqttgw.core.tls.TlsFiles;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.resolver.dns.DnsAddressResolverGroup;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.util.HashedWheelTimer;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.asynchttpclient.AsyncHttpClient;
import org.asynchttpclient.DefaultAsyncHttpClient;
import org.asynchttpclient.DefaultAsyncHttpClientConfig;
import org.asynchttpclient.Request;
import org.asynchttpclient.RequestBuilder;
import org.asynchttpclient.Response;
import org.asynchttpclient.exception.TooManyConnectionsPerHostException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The auth service over HTTP with async-http-client. The client owns its event loops ({@code auth-http-*}, epoll
 * where available) and resolves host names with Netty's asynchronous DNS resolver on them, so a call started on a
 * device's event loop never waits: not for a connection (the pool is asked for no more than it has, see
 * {@code auth.http.max-in-flight}, and a call that still finds none free asks again on a timer), not for DNS, not
 * for the answer. Keep-alive connections, no redirects, two
 * retries of a request whose kept-alive connection turned out closed.
 */
final class AhcAuthService implements AuthService {
    private static final Logger LOG = LoggerFactory.getLogger(AhcAuthService.class);

    /** How long a call that found every connection busy waits before it asks the pool again. */
    static final long CONNECTION_RETRY_MILLIS = 5;

    private final AsyncHttpClient client;
    private final RequestTemplate template;
    private final HashedWheelTimer timer;
    private final long requestTimeoutNanos;
    private final Counter connectionWaits;

    AhcAuthService(HttpAuthSettings settings, MeterRegistry meters) {
        this.template = settings.template();
        this.requestTimeoutNanos = settings.requestTimeout().toNanos();
        this.connectionWaits = Counter.builder("mqttgw.auth.http.connection.waits")
                .description("Times a call found all auth.http.max-connections busy (some still closing) and "
                        + "asked again shortly after").register(meters);
        this.timer = new HashedWheelTimer(new DefaultThreadFactory("auth-http-timer", true), 10,
                TimeUnit.MILLISECONDS);
        boolean epoll = Epoll.isAvailable();
        DefaultAsyncHttpClientConfig.Builder config = new DefaultAsyncHttpClientConfig.Builder()
                .setThreadPoolName("auth-http")
                .setNettyTimer(timer)
                .setIoThreadsCount(settings.ioThreads())
                .setUseNativeTransport(epoll)
                .setUseOnlyEpollNativeTransport(epoll)
                .setAddressResolverGroup(new DnsAddressResolverGroup(new DnsNameResolverBuilder()
                        .datagramChannelType(epoll ? EpollDatagramChannel.class : NioDatagramChannel.class)))
                .setMaxConnectionsPerHost(settings.maxConnections())
                // never wait for a pooled connection: that wait would block the calling thread, a device loop
                .setAcquireFreeChannelTimeout(0)
                .setKeepAlive(true)
                .setPooledConnectionIdleTimeout(settings.idleTimeout())
                .setConnectTimeout(settings.connectTimeout())
                .setRequestTimeout(settings.requestTimeout())
                .setReadTimeout(settings.requestTimeout())
                .setMaxRequestRetry(2)
                .setFollowRedirect(false)
                .setTcpNoDelay(true)
                .setCompressionEnforced(false)
                .setUserAgent("mqttgw-auth")
                .setShutdownQuietPeriod(Duration.ofMillis(100))
                .setShutdownTimeout(Duration.ofSeconds(2));
        if (settings.caFile() != null) {
            try {
                config.setSslContext(SslContextBuilder.forClient().trustManager(
                        TlsFiles.certificates(HttpAuthConfigKeys.CA_FILE.name(), settings.caFile())).build());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot build the TLS context for the auth service from "
                        + settings.caFile(), e);
            }
        }
        this.client = new DefaultAsyncHttpClient(config.build());
        LOG.info("http authentication: {} {} ({} connections, {} in flight, {} event loops, {})",
                template.method(), settings.template().url(new AuthRequest("{client-id}", null, null, null, null,
                        null, "{listener}"), null), settings.maxConnections(), settings.maxInFlight(),
                settings.ioThreads(), epoll ? "epoll" : "nio");
    }

    @Override
    public CompletionStage<ServiceAnswer> call(AuthRequest request, String fingerprint) {
        RequestBuilder builder = new RequestBuilder(template.method()).setUrl(template.url(request, fingerprint));
        template.headers().forEach(builder::addHeader);
        builder.setHeader("Accept", "application/json");
        if (template.hasBody()) {
            builder.setHeader("Content-Type", "application/json")
                    .setBody(template.body(request, fingerprint));
        }
        CompletableFuture<ServiceAnswer> answer = new CompletableFuture<>();
        attempt(builder.build(), answer, System.nanoTime() + requestTimeoutNanos);
        return answer;
    }

    /**
     * Sends {@code request}. A connection closing after a timed-out call still counts against the pool for a
     * moment, so a call can find all connections taken while fewer calls than that are in flight: no request was
     * sent then, and it is tried again a few milliseconds later, on the timer, until its request timeout.
     */
    private void attempt(Request request, CompletableFuture<ServiceAnswer> answer, long deadline) {
        CompletableFuture<Response> response;
        try {
            response = client.executeRequest(request).toCompletableFuture();
        } catch (RuntimeException e) {
            answer.completeExceptionally(e);
            return;
        }
        response.whenComplete((r, error) -> {
            if (error == null) {
                try {
                    answer.complete(ResponseContract.interpret(r.getStatusCode(),
                            r.getResponseBodyAsBytes(), r.getHeader("Cache-Control")));
                } catch (RuntimeException e) {
                    answer.completeExceptionally(e);
                }
                return;
            }
            Throwable cause = HttpAuthenticator.unwrap(error);
            if (!(cause instanceof TooManyConnectionsPerHostException)) {
                answer.completeExceptionally(cause);
            } else if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CONNECTION_RETRY_MILLIS) - deadline < 0
                    && !client.isClosed()) {
                connectionWaits.increment();
                timer.newTimeout(t -> attempt(request, answer, deadline), CONNECTION_RETRY_MILLIS,
                        TimeUnit.MILLISECONDS);
            } else {
                answer.completeExceptionally(new AuthServiceException("no_connection",
                        "no connection to the auth service became free within auth.http.request-timeout"));
            }
        });
    }

    @Override
    public void close() {
        try {
            client.close();
        } catch (IOException e) {
            LOG.warn("closing the auth service client: {}", e.toString());
        } finally {
            timer.stop();
        }
    }
}
