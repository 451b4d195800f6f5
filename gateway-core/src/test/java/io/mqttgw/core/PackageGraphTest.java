package io.mqttgw.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Core's packages form a graph without cycles, so each can be read, tested and changed from the bottom up. The graph
 * comes from the main sources: imports and fully qualified references in code (comments and strings left out).
 */
class PackageGraphTest {
    private static final String ROOT = "io.mqttgw.core";
    private static final Path SOURCES = Path.of("src/main/java/io/mqttgw/core");
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    /** A reference to a type of core: the package is what precedes the first capitalised segment. */
    private static final Pattern REFERENCE = Pattern.compile("\\b(io\\.mqttgw\\.core(?:\\.[a-z]\\w*)*)\\.[A-Z]");
    private static final Pattern COMMENT_OR_STRING =
            Pattern.compile("/\\*.*?\\*/|//[^\\n]*|\"(?:\\\\.|[^\"\\\\])*\"", Pattern.DOTALL);

    /**
     * Arrows that close a cycle today and need a redesign rather than a move, each with why it is still there.
     * Keys are {@code from -> to}, relative to {@value #ROOT}.
     */
    private static final Map<String, String> ALLOWED = Map.of(
            "connection -> mqtt.downlink",
            "ConnectionContext holds the downlink session and WritabilityWatch resumes it when the channel drains",
            "connection -> mqtt.publish",
            "ConnectionContext holds the uplink acknowledgement window",
            "metrics -> connection",
            "GatewayMetrics registers one close counter per DisconnectReason",
            "metrics -> tls",
            "GatewayMetrics registers one failure counter per TlsFailureReason");

    @Test
    void corePackagesHaveNoCycles() {
        Map<String, Set<String>> graph = packageGraph();
        for (String edge : ALLOWED.keySet()) {
            String[] ends = edge.split(" -> ");
            graph.getOrDefault(ends[0], new HashSet<>()).remove(ends[1]);
        }
        List<String> cycle = findCycle(graph);
        assertTrue(cycle.isEmpty(), () -> "package cycle in core: " + String.join(" -> ", cycle));
    }

    @Test
    void everyAllowedArrowStillExists() {
        Map<String, Set<String>> graph = packageGraph();
        for (String edge : ALLOWED.keySet()) {
            String[] ends = edge.split(" -> ");
            assertTrue(graph.getOrDefault(ends[0], Set.of()).contains(ends[1]),
                    () -> "allowed arrow no longer in the sources, remove it from ALLOWED: " + edge);
        }
    }

    @Test
    void readsTheArrowsOfTheSources() {
        Map<String, Set<String>> graph = packageGraph();
        assertTrue(graph.getOrDefault("pipeline", Set.of()).contains("connection"), () -> graph.toString());
        assertTrue(graph.getOrDefault("mqtt.connect", Set.of()).contains("spi"), () -> graph.toString());
    }

    @Test
    void findsACycleAndNamesItsPackages() {
        Map<String, Set<String>> graph = new TreeMap<>();
        graph.put("a", Set.of("b"));
        graph.put("b", Set.of("c", "d"));
        graph.put("c", Set.of("a"));
        assertEquals(List.of("a", "b", "c", "a"), findCycle(graph));
        graph.put("c", Set.of());
        assertEquals(List.of(), findCycle(graph));
    }

    /** Package (relative to the root, {@code ""} for the root) to the packages its sources reference. */
    private static Map<String, Set<String>> packageGraph() {
        Map<String, Set<String>> graph = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String source = Files.readString(file, StandardCharsets.UTF_8);
                Matcher declared = PACKAGE.matcher(source);
                assertTrue(declared.find(), () -> "no package declaration: " + file);
                String from = relative(declared.group(1));
                Set<String> to = graph.computeIfAbsent(from, k -> new TreeSet<>());
                Matcher reference = REFERENCE.matcher(COMMENT_OR_STRING.matcher(source).replaceAll(" "));
                while (reference.find()) {
                    String target = relative(reference.group(1));
                    if (!target.equals(from)) {
                        to.add(target);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertTrue(graph.size() > 10, () -> "read too few packages under " + SOURCES.toAbsolutePath() + ": " + graph);
        return graph;
    }

    private static String relative(String pkg) {
        return pkg.equals(ROOT) ? "" : pkg.substring(ROOT.length() + 1);
    }

    /** One cycle as its packages in order, first repeated at the end; empty when the graph has none. */
    static List<String> findCycle(Map<String, Set<String>> graph) {
        Set<String> done = new HashSet<>();
        for (String start : new TreeSet<>(graph.keySet())) {
            List<String> path = new ArrayList<>();
            List<String> cycle = walk(start, graph, path, done);
            if (!cycle.isEmpty()) {
                return cycle;
            }
        }
        return List.of();
    }

    private static List<String> walk(String node, Map<String, Set<String>> graph, List<String> path,
                                     Set<String> done) {
        int at = path.indexOf(node);
        if (at >= 0) {
            List<String> cycle = new ArrayList<>(path.subList(at, path.size()));
            cycle.add(node);
            return cycle;
        }
        if (done.contains(node)) {
            return List.of();
        }
        path.add(node);
        for (String next : new TreeSet<>(graph.getOrDefault(node, Set.of()))) {
            List<String> cycle = walk(next, graph, path, done);
            if (!cycle.isEmpty()) {
                return cycle;
            }
        }
        path.remove(path.size() - 1);
        done.add(node);
        return List.of();
    }
}
