package io.mqttgw.auth.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;

/**
 * The one Jackson factory of the auth call: the request body is written and the answer read with its streaming
 * generator and parser (no tree, no data binding), since both happen on every CONNECT that reaches the service.
 * Answers nested deeper than {@link #MAX_DEPTH} are refused. Thread-safe (factories are).
 */
final class AuthJson {
    /** Containers an answer may nest; the contract needs three (answer, attributes, a list value). */
    static final int MAX_DEPTH = 16;

    static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
            .build();

    private AuthJson() {
    }
}
