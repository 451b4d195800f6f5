package io.mqttgw.auth.x509;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Client id to the SHA-256 fingerprint of the only certificate that client id may connect with. Read from a file
 * of lines {@code CLIENT-ID FINGERPRINT} (blank lines and {@code #} comments skipped). Immutable.
 */
public final class FingerprintPins {
    private final Map<String, String> pins;

    private FingerprintPins(Map<String, String> pins) {
        this.pins = Map.copyOf(pins);
    }

    public static FingerprintPins of(Map<String, String> pins) {
        Map<String, String> normalized = new HashMap<>();
        pins.forEach((id, fp) -> normalized.put(id, Fingerprints.normalize(fp)));
        return new FingerprintPins(normalized);
    }

    /** Reads {@code file}; an unreadable file or a bad line is an {@link IllegalArgumentException} naming it. */
    public static FingerprintPins read(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e);
        }
        Map<String, String> pins = new HashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split("\\s+");
            if (parts.length != 2) {
                throw new IllegalArgumentException(file + " line " + (i + 1) + ": expected CLIENT-ID FINGERPRINT");
            }
            try {
                if (pins.put(parts[0], Fingerprints.normalize(parts[1])) != null) {
                    throw new IllegalArgumentException("client id " + parts[0] + " is pinned twice");
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(file + " line " + (i + 1) + ": " + e.getMessage());
            }
        }
        return new FingerprintPins(pins);
    }

    /** The pinned fingerprint of {@code clientId}, or null when it has none. */
    public String pinOf(String clientId) {
        return pins.get(clientId);
    }

    public int size() {
        return pins.size();
    }
}
