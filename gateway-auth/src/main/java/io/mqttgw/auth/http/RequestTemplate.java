package io.mqttgw.auth.http;

import com.fasterxml.jackson.core.JsonGenerator;
import io.mqttgw.core.spi.AuthRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How a CONNECT becomes an HTTP call: the URL template with its placeholders replaced, the method, the fixed
 * headers and the JSON body's members. Parsed and checked once from configuration; immutable.
 *
 * <p>A value put into the URL is device input and must stay inside its placeholder: it is percent-encoded as UTF-8,
 * every byte but the unreserved ones ({@code A-Z a-z 0-9 - _ ~}, and {@code .} in the query) escaped. In the path
 * the dot is escaped too ({@code %2E}), so no value, nor two values side by side, can form a {@code .} or
 * {@code ..} segment that a client or server would resolve into another path; {@code /}, {@code ?}, {@code #},
 * {@code %}, spaces and CR/LF are escaped everywhere. Placeholders in the scheme, host or fragment are refused at
 * startup: there no encoding keeps a value from choosing where the call goes.
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
            parts.add(new Slot(field, inPath(url.substring(0, open), name)));
            i = close + 1;
        }
        URI probe;
        try {
            probe = URI.create(String.join("", parts.stream()
                    .map(p -> p instanceof Slot ? "x" : (String) p).toList()));
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
            if (part instanceof Slot slot) {
                String v = slot.field.valueOf(request, fingerprint);
                if (v != null) {
                    encode(sb, v, slot.inPath);
                }
            } else {
                sb.append((String) part);
            }
        }
        return sb.toString();
    }

    /**
     * Whether a placeholder after {@code before} (the template's text up to it) is in the path (true) or the query
     * (false); one in the scheme, host or fragment is refused.
     */
    private static boolean inPath(String before, String name) {
        if (before.indexOf('#') >= 0) {
            throw new IllegalArgumentException("placeholder {" + name + "} in the URL's fragment, which is not sent");
        }
        if (before.indexOf('?') >= 0) {
            return false;
        }
        int authority = before.indexOf("://");
        if (authority < 0 || before.indexOf('/', authority + 3) < 0) {
            throw new IllegalArgumentException("placeholder {" + name + "} before the URL's path: a device's value "
                    + "must not choose the scheme or the host");
        }
        return true;
    }

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    /** Appends {@code value} as UTF-8, every byte but the unreserved ones percent-encoded (the dot too in a path). */
    static void encode(StringBuilder sb, String value, boolean inPath) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        for (byte b : bytes) {
            int c = b & 0xff;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
                    || c == '~' || c == '.' && !inPath) {
                sb.append((char) c);
            } else {
                sb.append('%').append(HEX[c >>> 4]).append(HEX[c & 0xf]);
            }
        }
    }

    /** A placeholder of the URL and where it stands. */
    private record Slot(RequestField field, boolean inPath) {
    }

    /** The JSON body, UTF-8: an object of the configured members, each a string or null. */
    public byte[] body(AuthRequest request, String fingerprint) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator g = AuthJson.FACTORY.createGenerator(out)) {
            g.writeStartObject();
            for (int i = 0; i < bodyFields.size(); i++) {
                g.writeStringField(bodyNames.get(i), bodyFields.get(i).valueOf(request, fingerprint));
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory cannot fail", e);
        }
        return out.toByteArray();
    }
}
