package io.mqttgw.core.testkit;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Calls to a test gateway's admin listener as an operator (or a hostile caller) makes them: HTTP/1.1, no body. */
public final class AdminCalls {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private AdminCalls() {
    }

    /**
     * {@code method pathAndQuery} on 127.0.0.1:{@code port}, with {@code Authorization: Bearer token} unless the token
     * is null; a minute at most (an operation may run for tens of seconds on a loaded machine).
     */
    public static HttpResponse<String> call(String method, int port, String pathAndQuery, String token)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
                .timeout(Duration.ofSeconds(60)).method(method, HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
