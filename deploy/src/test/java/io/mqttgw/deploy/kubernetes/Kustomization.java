package io.mqttgw.deploy.kubernetes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.Yaml;

/**
 * Renders a kustomization of this repository the way {@code kubectl kustomize} does, for the features the manifests
 * here use (resources and bases, components, JSON 6902 patches on a kind and name, ConfigMap generators with files,
 * literals,
 * {@code behavior: merge} and the name-suffix option), so the rendered overlays are checked where kubectl is not
 * installed. Common labels are not added (the checks read the manifests' own selectors); any other feature fails the
 * rendering rather than being ignored.
 */
final class Kustomization {
    private static final List<String> KNOWN = List.of("apiVersion", "kind", "resources", "components", "patches",
            "labels", "configMapGenerator", "generatorOptions");

    /** A generated ConfigMap: its data, and whether kustomize appends a content hash to its name. */
    record Generated(String name, Map<String, String> data, boolean hashSuffix) {
    }

    final List<Map<String, Object>> documents = new ArrayList<>();
    final Map<String, Generated> configMaps = new LinkedHashMap<>();

    static Kustomization render(Path dir) throws IOException {
        Kustomization k = new Kustomization();
        k.apply(dir);
        return k;
    }

    @SuppressWarnings("unchecked")
    private void apply(Path dir) throws IOException {
        Map<String, Object> kustomization = new Yaml().load(Files.readString(dir.resolve("kustomization.yaml")));
        for (String key : kustomization.keySet()) {
            if (!KNOWN.contains(key)) {
                throw new IllegalArgumentException(dir + ": " + key + " is not rendered by this test");
            }
        }
        for (Object resource : (List<Object>) kustomization.getOrDefault("resources", List.of())) {
            Path p = dir.resolve((String) resource).normalize();
            if (Files.isDirectory(p)) {
                apply(p);
            } else {
                for (Object doc : new Yaml().loadAll(Files.readString(p))) {
                    documents.add((Map<String, Object>) doc);
                }
            }
        }
        // a component works on what the resources produced, before this kustomization's own generators and patches
        for (Object component : (List<Object>) kustomization.getOrDefault("components", List.of())) {
            apply(dir.resolve((String) component).normalize());
        }
        Map<String, Object> options = (Map<String, Object>) kustomization.getOrDefault("generatorOptions", Map.of());
        boolean hashByDefault = !Boolean.TRUE.equals(options.get("disableNameSuffixHash"));
        for (Object g : (List<Object>) kustomization.getOrDefault("configMapGenerator", List.of())) {
            Map<String, Object> generator = (Map<String, Object>) g;
            String name = (String) generator.get("name");
            Map<String, Object> own = (Map<String, Object>) generator.getOrDefault("options", Map.of());
            boolean hash = own.containsKey("disableNameSuffixHash")
                    ? !Boolean.TRUE.equals(own.get("disableNameSuffixHash")) : hashByDefault;
            Map<String, String> data = new LinkedHashMap<>();
            String behavior = (String) generator.getOrDefault("behavior", "create");
            if (behavior.equals("merge")) {
                Generated base = configMaps.get(name);
                if (base == null) {
                    throw new IllegalArgumentException(dir + ": merge into " + name + ", which no base generates");
                }
                data.putAll(base.data());
                hash = base.hashSuffix();
            } else if (!behavior.equals("create") || configMaps.containsKey(name)) {
                throw new IllegalArgumentException(dir + ": " + name + " generated twice (behavior " + behavior + ")");
            }
            for (Object f : (List<Object>) generator.getOrDefault("files", List.of())) {
                String file = (String) f;
                int eq = file.indexOf('=');
                String key = eq < 0 ? Path.of(file).getFileName().toString() : file.substring(0, eq);
                data.put(key, Files.readString(dir.resolve(eq < 0 ? file : file.substring(eq + 1))));
            }
            for (Object l : (List<Object>) generator.getOrDefault("literals", List.of())) {
                String[] kv = ((String) l).split("=", 2);
                data.put(kv[0], kv[1]);
            }
            configMaps.put(name, new Generated(name, data, hash));
        }
        for (Object p : (List<Object>) kustomization.getOrDefault("patches", List.of())) {
            Map<String, Object> patch = (Map<String, Object>) p;
            Map<String, Object> target = (Map<String, Object>) patch.get("target");
            Map<String, Object> doc = documents.stream().filter(d -> target.get("kind").equals(d.get("kind"))
                    && target.get("name").equals(((Map<String, Object>) d.get("metadata")).get("name")))
                    .findFirst().orElseThrow(() -> new IllegalArgumentException(dir + ": no " + target));
            for (Object op : (List<Object>) new Yaml().load((String) patch.get("patch"))) {
                jsonPatch(doc, (Map<String, Object>) op);
            }
        }
    }

    /** One JSON 6902 operation (add, replace, remove) on a path of mapping keys and list indexes. */
    @SuppressWarnings("unchecked")
    private static void jsonPatch(Map<String, Object> doc, Map<String, Object> op) {
        String[] path = ((String) op.get("path")).substring(1).split("/");
        Object parent = doc;
        for (int i = 0; i < path.length - 1; i++) {
            String step = path[i].replace("~1", "/").replace("~0", "~");
            parent = parent instanceof List<?> list ? list.get(Integer.parseInt(step))
                    : ((Map<String, Object>) parent).get(step);
        }
        String last = path[path.length - 1].replace("~1", "/").replace("~0", "~");
        String verb = (String) op.get("op");
        if (parent instanceof List<?> l) {
            List<Object> list = (List<Object>) l;
            switch (verb) {
                case "add" -> list.add(last.equals("-") ? list.size() : Integer.parseInt(last), op.get("value"));
                case "replace" -> list.set(Integer.parseInt(last), op.get("value"));
                case "remove" -> list.remove(Integer.parseInt(last));
                default -> throw new IllegalArgumentException("op " + verb);
            }
        } else {
            Map<String, Object> map = (Map<String, Object>) parent;
            switch (verb) {
                case "add", "replace" -> map.put(last, op.get("value"));
                case "remove" -> map.remove(last);
                default -> throw new IllegalArgumentException("op " + verb);
            }
        }
    }
}
