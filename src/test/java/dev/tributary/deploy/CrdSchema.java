package dev.tributary.deploy;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks an object against a CRD's structural schema (OpenAPI v3, as Kubernetes stores it) the way
 * the API server prunes and validates it, with one difference: a field the schema does not declare
 * is a problem here, where the API server would silently drop it. Written here because no library
 * on the class path validates Kubernetes structural schemas (JSON Schema validators accept unknown
 * fields unless {@code additionalProperties: false}, which CRDs never say).
 */
final class CrdSchema {

  private CrdSchema() {}

  /** Fields every object has, which CRD schemas leave out at their root. */
  static final List<String> ROOT_FIELDS = List.of("apiVersion", "kind", "metadata");

  /** An object at the root of its CRD's schema: its own fields, and apiVersion, kind, metadata. */
  static void validateRoot(
      Map<String, Object> object,
      Map<String, Object> schema,
      String path,
      Map<String, List<String>> laterEnumValues,
      List<String> problems) {
    Map<String, Object> rest = new LinkedHashMap<>(object);
    ROOT_FIELDS.forEach(rest::remove);
    validate(rest, schema, path, laterEnumValues, problems);
  }

  /**
   * {@code laterEnumValues}: per path, values a newer release of the CRD adds to an enum (the CRD
   * at hand being older than what the manifests target).
   */
  @SuppressWarnings("unchecked")
  static void validate(
      Object value,
      Map<String, Object> schema,
      String path,
      Map<String, List<String>> laterEnumValues,
      List<String> problems) {
    if (value == null) {
      return;
    }
    if (Boolean.TRUE.equals(schema.get("x-kubernetes-int-or-string"))) {
      if (!(value instanceof Number || value instanceof String)) {
        problems.add(path + ": " + value + " is neither an integer nor a string");
      }
      return;
    }
    boolean preserve = Boolean.TRUE.equals(schema.get("x-kubernetes-preserve-unknown-fields"));
    String type = (String) schema.get("type");
    if (type == null) {
      return; // any value
    }
    switch (type) {
      case "object" -> {
        if (!(value instanceof Map<?, ?> map)) {
          problems.add(path + ": " + value + " is not an object");
          return;
        }
        Map<String, Object> properties = (Map<String, Object>) schema.get("properties");
        Object additional = schema.get("additionalProperties");
        for (Map.Entry<?, ?> e : map.entrySet()) {
          String key = String.valueOf(e.getKey());
          if (properties != null && properties.containsKey(key)) {
            validate(
                e.getValue(),
                (Map<String, Object>) properties.get(key),
                path + "." + key,
                laterEnumValues,
                problems);
          } else if (additional instanceof Map<?, ?> a) {
            validate(
                e.getValue(), (Map<String, Object>) a, path + "." + key, laterEnumValues, problems);
          } else if (!preserve) {
            problems.add(path + ": unknown field " + key);
          }
        }
        for (Object required : (Collection<Object>) schema.getOrDefault("required", List.of())) {
          if (!map.containsKey(required)) {
            problems.add(path + ": required field " + required + " is missing");
          }
        }
      }
      case "array" -> {
        if (!(value instanceof List<?> list)) {
          problems.add(path + ": " + value + " is not an array");
          return;
        }
        Map<String, Object> items = (Map<String, Object>) schema.get("items");
        for (int i = 0; i < list.size() && items != null; i++) {
          validate(list.get(i), items, path + "[" + i + "]", laterEnumValues, problems);
        }
      }
      case "string" -> {
        if (!(value instanceof String s)) {
          problems.add(path + ": " + value + " is not a string");
        } else if (schema.get("enum") instanceof List<?> allowed
            && !allowed.contains(s)
            && !laterEnumValues.getOrDefault(path, List.of()).contains(s)) {
          problems.add(path + ": " + s + " is not one of " + allowed);
        }
      }
      case "integer" -> {
        if (!(value instanceof Integer || value instanceof Long)) {
          problems.add(path + ": " + value + " is not an integer");
        }
      }
      case "number" -> {
        if (!(value instanceof Number)) {
          problems.add(path + ": " + value + " is not a number");
        }
      }
      case "boolean" -> {
        if (!(value instanceof Boolean)) {
          problems.add(path + ": " + value + " is not a boolean");
        }
      }
      default -> problems.add(path + ": schema type " + type + " is not handled here");
    }
  }
}
