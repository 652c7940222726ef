package dev.tributary.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/** A plan of a declared set as {@code plan} and {@code apply} print it, Terraform-style. */
final class PlanText {

  private PlanText() {}

  /**
   * A plan as lines: one per object (+ create, ~ evolve or change, = unchanged, - drop, !
   * rejected).
   */
  static void print(PrintStream out, JsonNode plan) {
    out.println(
        "Plan "
            + plan.path("planId").asString()
            + " for "
            + plan.path("catalog").asString()
            + "."
            + plan.path("database").asString()
            + (plan.path("prune").asBoolean() ? " (prune)" : "")
            + ":");
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (JsonNode e : plan.path("objects")) {
      String action = e.path("action").asString();
      counts.merge(action, 1, Integer::sum);
      String where =
          e.path("file").isMissingNode() || e.path("file").isNull()
              ? ""
              : e.path("file").asString()
                  + ":"
                  + e.path("line").asInt()
                  + ":"
                  + e.path("column").asInt();
      String line =
          switch (action) {
            case "CREATE" -> "+ create    " + e.path("name").asString();
            case "EVOLVE" -> "~ evolve    " + e.path("name").asString() + "  (" + restart(e) + ")";
            case "CHANGE" -> "~ change    " + e.path("name").asString() + "  (" + changes(e) + ")";
            case "UNCHANGED" -> "= unchanged " + e.path("name").asString();
            case "DROP" -> "- drop      " + e.path("name").asString();
            default ->
                "! rejected  "
                    + where
                    + "  "
                    + e.path("code").asString()
                    + ": "
                    + e.path("summary").asString();
          };
      out.println("  " + line);
      for (JsonNode w : e.path("plan").path("warnings")) {
        out.println(
            "      warning " + w.path("code").asString() + ": " + w.path("message").asString());
      }
    }
    out.println(
        String.format(
            Locale.ROOT,
            "%d to create, %d to evolve, %d to change, %d unchanged, %d to drop, %d rejected.",
            counts.getOrDefault("CREATE", 0),
            counts.getOrDefault("EVOLVE", 0),
            counts.getOrDefault("CHANGE", 0),
            counts.getOrDefault("UNCHANGED", 0),
            counts.getOrDefault("DROP", 0),
            counts.getOrDefault("REJECTED", 0)));
  }

  private static String restart(JsonNode entry) {
    JsonNode plan = entry.path("plan");
    List<String> parts = new ArrayList<>();
    parts.add(plan.path("restart").asString("restart"));
    for (JsonNode s : plan.path("sourceStarts")) {
      parts.add(s.path("source").asString() + " from " + s.path("from").asString());
    }
    if (plan.path("stateDiscarded").asBoolean() && !parts.get(0).contains("discarded")) {
      parts.add("state discarded");
    }
    return String.join("; ", parts);
  }

  private static String changes(JsonNode entry) {
    List<String> parts = new ArrayList<>();
    for (JsonNode c : entry.path("plan").path("changes")) {
      parts.add(
          c.path("property").asString()
              + ": "
              + c.path("before").asString("-")
              + " -> "
              + c.path("after").asString("-"));
    }
    if (parts.isEmpty()) {
      return entry.path("summary").asString("");
    }
    boolean restarts = entry.path("plan").path("jobRestarts").asBoolean();
    return String.join(", ", parts) + (restarts ? "; restarts from its savepoint" : "; no restart");
  }
}
