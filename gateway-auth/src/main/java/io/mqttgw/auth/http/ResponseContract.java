package io.mqttgw.auth.http;

import io.mqttgw.core.spi.AuthResult;
import io.mqttgw.core.spi.AuthResult.Decision;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * What an answer of the auth service means (README, "HTTP authentication"):
 * <ul>
 * <li>200 with a JSON object {@code {"allow": true, "attributes": {...}}} allows; attribute values are strings
 * (numbers and booleans are written as text, arrays of strings joined with commas);</li>
 * <li>200 with {@code {"allow": false, "reason": "bad_credentials"}} refuses with bad user name or password, any
 * other or no reason with not authorized;</li>
 * <li>401 refuses with bad user name or password, 403 with not authorized, whatever the body;</li>
 * <li>anything else (other status, a body that is not such an object) is a failed call.</li>
 * </ul>
 * {@code Cache-Control: max-age=N} says how long the answer may be remembered; {@code no-store} or {@code no-cache}
 * that it must not be.
 */
public final class ResponseContract {
    /** An attribute whose value, when present, must equal the device certificate's SHA-256 fingerprint. */
    public static final String PIN_ATTRIBUTE = "certificate-sha256";

    private ResponseContract() {
    }

    /** Throws {@link AuthServiceException} when the answer is not one the contract knows. */
    public static ServiceAnswer interpret(int status, String body, String cacheControl) {
        long maxAge = maxAgeNanos(cacheControl);
        if (status == 401) {
            return new ServiceAnswer(AuthResult.deny(Decision.BAD_CREDENTIALS), maxAge);
        }
        if (status == 403) {
            return new ServiceAnswer(AuthResult.deny(Decision.NOT_AUTHORIZED), maxAge);
        }
        if (status != 200) {
            throw new AuthServiceException("bad_status", "the auth service answered HTTP " + status);
        }
        Object doc;
        try {
            doc = Json.parse(body);
        } catch (IllegalArgumentException e) {
            throw new AuthServiceException("bad_response", "the auth service's answer is " + e.getMessage());
        }
        if (!(doc instanceof Map<?, ?> answer) || !(answer.get("allow") instanceof Boolean allow)) {
            throw new AuthServiceException("bad_response",
                    "the auth service's answer is not an object with a boolean \"allow\"");
        }
        if (!allow) {
            Decision d = "bad_credentials".equals(answer.get("reason")) ? Decision.BAD_CREDENTIALS
                    : Decision.NOT_AUTHORIZED;
            return new ServiceAnswer(AuthResult.deny(d), maxAge);
        }
        Object attributes = answer.get("attributes");
        if (attributes == null) {
            return new ServiceAnswer(AuthResult.ALLOWED, maxAge);
        }
        if (!(attributes instanceof Map<?, ?> map)) {
            throw new AuthServiceException("bad_response", "the auth service's \"attributes\" is not an object");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : map.entrySet()) {
            String text = text(e.getValue());
            if (text != null) {
                out.put((String) e.getKey(), text);
            }
        }
        return new ServiceAnswer(new AuthResult(Decision.ALLOW, out), maxAge);
    }

    private static String text(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof Double d) {
            return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString(d.longValue()) : d.toString();
        }
        if (v instanceof List<?> list) {
            return list.stream().map(ResponseContract::text).filter(s -> s != null)
                    .collect(Collectors.joining(","));
        }
        if (v instanceof Map<?, ?>) {
            throw new AuthServiceException("bad_response", "an attribute of the auth service's answer is an object");
        }
        return v.toString();
    }

    /** {@link ServiceAnswer#DEFAULT_TTL} when the header says nothing about freshness. */
    static long maxAgeNanos(String cacheControl) {
        if (cacheControl == null) {
            return ServiceAnswer.DEFAULT_TTL;
        }
        long maxAge = ServiceAnswer.DEFAULT_TTL;
        for (String directive : cacheControl.split(",")) {
            String d = directive.trim().toLowerCase(Locale.ROOT);
            if (d.equals("no-store") || d.equals("no-cache")) {
                return 0;
            }
            if (d.startsWith("max-age=")) {
                try {
                    long seconds = Long.parseLong(d.substring("max-age=".length()).replace("\"", ""));
                    maxAge = TimeUnit.SECONDS.toNanos(Math.max(0, Math.min(seconds, TimeUnit.DAYS.toSeconds(365))));
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return maxAge;
    }
}
