package io.mqttgw.auth.http;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import io.mqttgw.core.spi.AuthResult;
import io.mqttgw.core.spi.AuthResult.Decision;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

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
 * that it must not be. The body is read with Jackson's streaming parser (strict JSON, at most
 * {@link AuthJson#MAX_DEPTH} levels deep, UTF-8), straight from its bytes. Stateless.
 */
public final class ResponseContract {
    /** An attribute whose value, when present, must equal the device certificate's SHA-256 fingerprint. */
    public static final String PIN_ATTRIBUTE = "certificate-sha256";

    private ResponseContract() {
    }

    /**
     * Throws {@link AuthServiceException} when the answer is not one the contract knows.
     *
     * @param body the answer's body, UTF-8
     */
    public static ServiceAnswer interpret(int status, byte[] body, String cacheControl) {
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
        Answer answer;
        try (JsonParser p = AuthJson.FACTORY.createParser(body)) {
            answer = read(p);
        } catch (JsonProcessingException e) {
            throw new AuthServiceException("bad_response", "the auth service's answer is not JSON"
                    + (e.getLocation() == null ? "" : " at offset " + e.getLocation().getByteOffset()) + ": "
                    + e.getOriginalMessage());
        } catch (IOException e) {
            throw new AuthServiceException("bad_response", "the auth service's answer is not JSON: " + e.getMessage());
        }
        if (answer == null || answer.allow == null) {
            throw new AuthServiceException("bad_response",
                    "the auth service's answer is not an object with a boolean \"allow\"");
        }
        if (!answer.allow) {
            Decision d = "bad_credentials".equals(answer.reason) ? Decision.BAD_CREDENTIALS : Decision.NOT_AUTHORIZED;
            return new ServiceAnswer(AuthResult.deny(d), maxAge);
        }
        if (answer.attributesProblem != null) {
            throw new AuthServiceException("bad_response", answer.attributesProblem);
        }
        if (answer.attributes == null) {
            return new ServiceAnswer(AuthResult.ALLOWED, maxAge);
        }
        return new ServiceAnswer(new AuthResult(Decision.ALLOW, answer.attributes), maxAge);
    }

    /** What the members of an answer said; a repeated member counts as it last appears. */
    private static final class Answer {
        Boolean allow;
        String reason;
        Map<String, String> attributes;
        /** Why the attributes are unusable; matters only when the answer allows. */
        String attributesProblem;
    }

    /**
     * Reads one whole JSON document; null when it is not an object. Every value is read, also of members the
     * contract ignores, so a document broken anywhere is refused, as is anything after it.
     */
    private static Answer read(JsonParser p) throws IOException {
        JsonToken first = p.nextToken();
        if (first == null) {
            throw new JsonParseException(p, "no JSON document");
        }
        Answer answer = first == JsonToken.START_OBJECT ? new Answer() : null;
        if (answer == null) {
            p.skipChildren();
        } else {
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                switch (name) {
                    case "allow" -> answer.allow = value.isBoolean() ? value == JsonToken.VALUE_TRUE : null;
                    case "reason" -> answer.reason = value == JsonToken.VALUE_STRING ? p.getText() : null;
                    case "attributes" -> readAttributes(p, answer);
                    default -> {
                    }
                }
                // a container the switch did not read is skipped whole: its members are not the answer's
                p.skipChildren();
            }
        }
        if (p.nextToken() != null) {
            throw new JsonParseException(p, "trailing characters");
        }
        return answer;
    }

    private static void readAttributes(JsonParser p, Answer answer) throws IOException {
        answer.attributes = null;
        answer.attributesProblem = null;
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return;
        }
        if (p.currentToken() != JsonToken.START_OBJECT) {
            answer.attributesProblem = "the auth service's \"attributes\" is not an object";
            p.skipChildren();
            return;
        }
        Map<String, String> out = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            p.nextToken();
            String text = text(p, answer);
            if (text == null) {
                out.remove(name);
            } else {
                out.put(name, text);
            }
        }
        answer.attributes = out;
    }

    /**
     * The attribute value at the current token as text, consumed: strings as they are, numbers as text (whole
     * ones without a fraction), booleans as true/false, arrays of them joined with commas, null for null. An object,
     * in or out of an array, is not a value: it is noted as the answer's attributes problem.
     */
    private static String text(JsonParser p, Answer answer) throws IOException {
        JsonToken t = p.currentToken();
        switch (t) {
            case VALUE_NULL:
                return null;
            case VALUE_STRING:
                return p.getText();
            case VALUE_TRUE:
                return "true";
            case VALUE_FALSE:
                return "false";
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                double d = p.getDoubleValue();
                return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
            case START_ARRAY:
                StringBuilder joined = new StringBuilder();
                boolean first = true;
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    String element = text(p, answer);
                    if (element != null) {
                        (first ? joined : joined.append(',')).append(element);
                        first = false;
                    }
                }
                return joined.toString();
            default:
                answer.attributesProblem = "an attribute of the auth service's answer is an object";
                p.skipChildren();
                return null;
        }
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
