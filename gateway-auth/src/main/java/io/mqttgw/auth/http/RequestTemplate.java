package io.mqttgw.auth.http;

import io.mqttgw.core.spi.AuthRequest;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How a CONNECT becomes an HTTP call: the URL template with its placeholders replaced, the method, the fixed
 * headers and the JSON body's members. Parsed and checked once from configuration; immutable.
 */
public final class RequestTemplate {
    private final List<Object> urlParts;
    private final String method;
    private final Map<String, String> headers;
    private final List<RequestField> bodyFields;
    private final List<String> bodyNames;

    private RequestTemplate(List<Object> urlParts, String method, Map<String, String> headers,
                            List<RequestField> bodyFields, List<String> bodyNames) {
        this.urlParts = List.copyOf(urlParts);
        this.method = method;
        this.headers = Map.copyOf(headers);
        this.bodyFields = List.copyOf(bodyFields);
        this.bodyNames = List.copyOf(bodyNames);
    }

    /** Throws {@link IllegalArgumentException} saying what is wrong with {@code url} or {@code fields}. */
    public static RequestTemplate parse(String url, String method, Map<String, String> headers, List<String> fields) {
        List<Object> parts = new ArrayList<>();
        int i = 0;
        while (i < url.length()) {
            int open = url.indexOf('{', i);
            if (open < 0) {
                parts.add(url.substring(i));
                break;
            }
            int close = url.indexOf('}', open);
            if (close < 0) {
                throw new IllegalArgumentException("unclosed '{' in the URL");
            }
            if (open > i) {
                parts.add(url.substring(i, open));
            }
            String name = url.substring(open + 1, close);
            RequestField field = RequestField.named(name);
            if (field == null || !field.inUrl()) {
                throw new IllegalArgumentException("unknown URL placeholder {" + name + "}");
            }
            parts.add(field);
            i = close + 1;
        }
        URI probe;
        try {
            probe = URI.create(String.join("", parts.stream()
                    .map(p -> p instanceof RequestField ? "x" : (String) p).toList()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a URL: " + e.getMessage());
        }
        if (!"http".equals(probe.getScheme()) && !"https".equals(probe.getScheme()) || probe.getHost() == null) {
            throw new IllegalArgumentException("not an http or https URL with a host");
        }
        List<RequestField> bodyFields = new ArrayList<>();
        List<String> bodyNames = new ArrayList<>();
        for (String f : fields) {
            int eq = f.indexOf('=');
            String name = (eq < 0 ? f : f.substring(0, eq)).trim();
            RequestField field = RequestField.named(name);
            if (field == null) {
                throw new IllegalArgumentException("unknown body field '" + name + "'");
            }
            String json = eq < 0 ? field.jsonName : f.substring(eq + 1).trim();
            if (json.isEmpty() || bodyNames.contains(json)) {
                throw new IllegalArgumentException("body member name '" + json + "' is empty or repeated");
            }
            bodyFields.add(field);
            bodyNames.add(json);
        }
        return new RequestTemplate(parts, method, headers, bodyFields, bodyNames);
    }

    public String method() {
        return method;
    }

    public Map<String, String> headers() {
        return headers;
    }

    public boolean hasBody() {
        return !"GET".equals(method);
    }

    public String url(AuthRequest request, String fingerprint) {
        StringBuilder sb = new StringBuilder(96);
        for (Object part : urlParts) {
            if (part instanceof RequestField field) {
                String v = field.valueOf(request, fingerprint);
                sb.append(v == null ? "" : URLEncoder.encode(v, StandardCharsets.UTF_8).replace("+", "%20"));
            } else {
                sb.append((String) part);
            }
        }
        return sb.toString();
    }

    public String body(AuthRequest request, String fingerprint) {
        StringBuilder sb = new StringBuilder(256).append('{');
        for (int i = 0; i < bodyFields.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            Json.writeString(sb, bodyNames.get(i));
            sb.append(':');
            Json.writeString(sb, bodyFields.get(i).valueOf(request, fingerprint));
        }
        return sb.append('}').toString();
    }
}
