package io.mqttgw.core.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.mqttgw.core.cli.ClientsCommand.Connection;
import io.mqttgw.core.cli.ClientsCommand.Failure;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The HTTP side of the operator commands ({@code clients}, {@code drain}, {@code routes verify}): one request to the
 * node's operator API with the bearer token and/or client certificate of the {@link ClientsCommand.Connection},
 * turned into the body of a 2xx answer or a {@link ClientsCommand.Failure} whose exit status says whether the
 * gateway refused (its reason printed) or could not be reached.
 *
 * <p>Stateless; runs on the calling thread and waits for the answer (a command-line tool, never inside the gateway).
 */
final class OperatorApiClient {
    private static final JsonFactory JSON = new JsonFactory();
    private static final int USAGE = ClientsCommand.USAGE;
    private static final int REFUSED = ClientsCommand.REFUSED;
    private static final int UNREACHABLE = ClientsCommand.UNREACHABLE;
    private static final Pattern TOKEN_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private OperatorApiClient() {
    }

    /** One request; the body of a 2xx answer, else a {@link Failure} with the gateway's reason. */
    static String request(Connection c, String method, String pathAndQuery) throws IOException, InterruptedException {
        if (c.tokenFile == null && c.certFile == null) {
            throw new Failure(USAGE, "no credential: give --token-file FILE (env GATEWAY_ADMIN_TOKEN_FILE) and/or "
                    + "--cert FILE --key FILE for an operations listener with mutual TLS");
        }
        String token = c.tokenFile == null ? null : token(c.tokenFile);
        String base = c.url.endsWith("/") ? c.url.substring(0, c.url.length() - 1) : c.url;
        URI uri;
        try {
            uri = URI.create(base + pathAndQuery);
        } catch (IllegalArgumentException e) {
            throw new Failure(USAGE, "--admin-url " + c.url + " is not a URL: " + e.getMessage());
        }
        boolean https = "https".equalsIgnoreCase(uri.getScheme());
        if (!https && (c.certFile != null || c.caFile != null)) {
            throw new Failure(USAGE, "--cert and --ca-file are for TLS: give an https:// --admin-url, not " + c.url);
        }
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(c.timeoutSeconds))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        HttpClient.Builder client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(c.timeoutSeconds));
        if (https) {
            client.sslContext(OperatorTls.context(c.certFile, c.keyFile, c.caFile));
        }
        HttpResponse<String> r;
        try {
            r = client.build().send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            if (https) {
                // a refused client certificate shows as an alert, or (TLS 1.3, after the client's Finished) as the
                // connection closing under the request: either way the hint is about certificates
                throw new Failure(UNREACHABLE, "cannot reach " + base + " over TLS: " + e + (c.certFile == null
                        ? " (an operations listener with mutual TLS needs --cert and --key)"
                        : " (is --cert issued by the node's admin.operations.tls.ca-file, and does --ca-file hold "
                        + "the CA of the node's certificate?)"));
            }
            throw new Failure(UNREACHABLE, "cannot reach " + base + ": " + e);
        }
        if (r.statusCode() / 100 == 2) {
            return r.body();
        }
        String reason = errorOf(r.body());
        throw new Failure(r.statusCode() >= 500 ? UNREACHABLE : REFUSED,
                r.statusCode() + " " + (reason == null ? r.body().strip() : reason));
    }

    private static String token(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new Failure(USAGE, "cannot read the token file " + file + ": " + e);
        }
        for (String raw : lines) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(':');
            return colon > 0 && TOKEN_ID.matcher(line.substring(0, colon)).matches()
                    ? line.substring(colon + 1).strip() : line;
        }
        throw new Failure(USAGE, "the token file " + file + " holds no token");
    }

    /** The {@code error} of a JSON refusal, or null. */
    private static String errorOf(String body) {
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                if ("error".equals(name)) {
                    return p.getValueAsString();
                }
                p.skipChildren();
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }
}
