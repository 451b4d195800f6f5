package io.mqttgw.core.config;

import java.util.Collection;
import java.util.Optional;

/** The known name nearest a mistyped one (edit distance), for "did you mean" in configuration and CLI errors. */
public final class ClosestName {
    private ClosestName() {
    }

    /** The candidate within {@code maxDistance} edits of {@code name}, the nearest first, if any. */
    public static Optional<String> of(String name, Collection<String> candidates, int maxDistance) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String c : candidates) {
            int d = distance(name, c);
            if (d < bestDistance) {
                bestDistance = d;
                best = c;
            }
        }
        return best != null && bestDistance <= maxDistance ? Optional.of(best) : Optional.empty();
    }

    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
