package dev.tributary.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.Yaml;

/**
 * The part of Kustomize that {@code deploy/kubernetes} uses, to render an overlay here without the
 * {@code kustomize} binary (not packaged for these machines): resources (files and directories),
 * namespace, common labels, image names and JSON merge patches of custom resources. A kustomization
 * field outside that set fails the rendering, so a new one cannot pass unchecked.
 */
final class Kustomize {

  static final Set<String> FIELDS =
      Set.of("apiVersion", "kind", "namespace", "resources", "labels", "images", "patches");

  /** Kinds that live outside namespaces: {@code namespace:} leaves them alone. */
  static final Set<String> CLUSTER_SCOPED = Set.of("Namespace", "CustomResourceDefinition");

  private Kustomize() {}

  /**
   * The objects of the kustomization in {@code dir}, as {@code kubectl apply -k dir} sends them.
   */
  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> render(Path dir) throws IOException {
    Map<String, Object> k = new Yaml().load(Files.readString(dir.resolve("kustomization.yaml")));
    for (String field : k.keySet()) {
      if (!FIELDS.contains(field)) {
        throw new IllegalArgumentException(
            dir + ": kustomization field '" + field + "' is not handled here");
      }
    }
    List<Map<String, Object>> objects = new ArrayList<>();
    for (String resource : (List<String>) k.getOrDefault("resources", List.of())) {
      Path path = dir.resolve(resource).normalize();
      if (Files.isDirectory(path)) {
        objects.addAll(render(path));
      } else {
        for (Object doc : new Yaml().loadAll(Files.readString(path))) {
          if (doc != null) {
            objects.add((Map<String, Object>) doc);
          }
        }
      }
    }
    for (Map<String, Object> patch :
        (List<Map<String, Object>>) k.getOrDefault("patches", List.of())) {
      Map<String, Object> target = (Map<String, Object>) patch.get("target");
      Map<String, Object> body =
          new Yaml().load(Files.readString(dir.resolve((String) patch.get("path"))));
      int applied = 0;
      for (Map<String, Object> object : objects) {
        if (object.get("kind").equals(target.get("kind"))
            && name(object).equals(target.get("name"))) {
          mergePatch(object, body);
          applied++;
        }
      }
      if (applied != 1) {
        throw new IllegalArgumentException(
            dir + ": patch " + patch + " matched " + applied + " objects");
      }
    }
    for (Map<String, Object> labels :
        (List<Map<String, Object>>) k.getOrDefault("labels", List.of())) {
      if (labels.keySet().stream().anyMatch(f -> !f.equals("pairs"))) {
        throw new IllegalArgumentException(dir + ": only labels.pairs is handled here");
      }
      for (Map<String, Object> object : objects) {
        metadata(object, "labels").putAll((Map<String, Object>) labels.get("pairs"));
      }
    }
    for (Map<String, Object> image :
        (List<Map<String, Object>>) k.getOrDefault("images", List.of())) {
      String replacement = image.get("newName") + ":" + image.get("newTag");
      for (Map<String, Object> object : objects) {
        for (Map<String, Object> container : containers(object)) {
          String name = String.valueOf(container.get("image"));
          if (name.equals(image.get("name")) || name.startsWith(image.get("name") + ":")) {
            container.put("image", replacement);
          }
        }
      }
    }
    if (k.containsKey("namespace")) {
      for (Map<String, Object> object : objects) {
        if (!CLUSTER_SCOPED.contains(object.get("kind"))) {
          metadata(object, null).put("namespace", k.get("namespace"));
        }
      }
    }
    return objects;
  }

  /** RFC 7386, as Kustomize applies a patch to a custom resource. */
  @SuppressWarnings("unchecked")
  static void mergePatch(Map<String, Object> target, Map<String, Object> patch) {
    for (Map.Entry<String, Object> e : patch.entrySet()) {
      Object value = e.getValue();
      if (value == null) {
        target.remove(e.getKey());
      } else if (value instanceof Map<?, ?> m && target.get(e.getKey()) instanceof Map<?, ?> t) {
        mergePatch((Map<String, Object>) t, (Map<String, Object>) m);
      } else {
        target.put(e.getKey(), value);
      }
    }
  }

  static String name(Map<String, Object> object) {
    return String.valueOf(metadata(object, null).get("name"));
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> metadata(Map<String, Object> object, String child) {
    Map<String, Object> metadata =
        (Map<String, Object>) object.computeIfAbsent("metadata", k -> new LinkedHashMap<>());
    return child == null
        ? metadata
        : (Map<String, Object>) metadata.computeIfAbsent(child, k -> new LinkedHashMap<>());
  }

  /**
   * The pod spec of a workload (Deployment, StatefulSet, Job), of a FlinkDeployment's pod template,
   * or null.
   */
  @SuppressWarnings("unchecked")
  static Map<String, Object> podSpec(Map<String, Object> object) {
    Map<String, Object> spec = (Map<String, Object>) object.get("spec");
    if (spec == null) {
      return null;
    }
    Map<String, Object> template =
        (Map<String, Object>) spec.getOrDefault("template", spec.get("podTemplate"));
    return template == null ? null : (Map<String, Object>) template.get("spec");
  }

  /** Containers and init containers of a workload. */
  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> containers(Map<String, Object> object) {
    Map<String, Object> pod = podSpec(object);
    List<Map<String, Object>> all = new ArrayList<>();
    if (pod != null) {
      all.addAll((List<Map<String, Object>>) pod.getOrDefault("initContainers", List.of()));
      all.addAll((List<Map<String, Object>>) pod.getOrDefault("containers", List.of()));
    }
    return all;
  }
}
