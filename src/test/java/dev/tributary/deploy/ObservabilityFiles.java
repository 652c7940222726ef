package dev.tributary.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The PromQL expressions of {@code deploy/observability}: the alert rules and the Grafana
 * dashboard's panel queries, and what they ask of the service's metrics. Read by a regular
 * expression, not a PromQL parser (none is on the Java class path): the expressions are ours and
 * keep to {@code name{label="..."}} selectors and {@code by}/{@code on} clauses, and {@code
 * promtool} has already checked their syntax.
 */
public final class ObservabilityFiles {

  public static final Path DIRECTORY = Path.of("deploy", "observability");
  public static final Path RULES = DIRECTORY.resolve("alerts.yml");
  public static final Path RULE_TESTS = DIRECTORY.resolve("alerts-test.yml");
  public static final Path DASHBOARD = DIRECTORY.resolve("tributary-dashboard.json");

  /** Labels Prometheus adds to every scraped series; the service does not set them. */
  static final Set<String> TARGET_LABELS = Set.of("instance", "job");

  private static final Pattern NAME = Pattern.compile("\\btributary_[a-z_]+\\b");
  private static final Pattern SELECTOR = Pattern.compile("(tributary_[a-z_]+)\\{([^}]*)}");
  private static final Pattern MATCHER = Pattern.compile("([a-z_]+)\\s*(=~|!~|!=|=)");
  private static final Pattern GROUPING =
      Pattern.compile("\\b(?:by|on|without|ignoring|group_left|group_right)\\s*\\(([^)]*)\\)");

  /** What one expression needs: metric names, labels per metric, labels some metric must have. */
  public record Needs(
      String where,
      String expr,
      Set<String> metrics,
      Map<String, Set<String>> selectorLabels,
      Set<String> groupingLabels) {}

  private ObservabilityFiles() {}

  /** Alert name (or record name) to expression, in file order. */
  @SuppressWarnings("unchecked")
  public static Map<String, String> ruleExpressions() throws IOException {
    Map<String, Object> file = new Yaml().load(Files.readString(RULES));
    Map<String, String> exprs = new LinkedHashMap<>();
    for (Map<String, Object> group : (List<Map<String, Object>>) file.get("groups")) {
      for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
        Object name = rule.containsKey("alert") ? rule.get("alert") : rule.get("record");
        exprs.put("rule " + name, String.valueOf(rule.get("expr")).trim());
      }
    }
    return exprs;
  }

  /**
   * Panel title to expression, with the dashboard's variables given values Prometheus accepts
   * ({@code $table} matches every table).
   */
  public static Map<String, String> dashboardExpressions() throws IOException {
    JsonNode dashboard = JsonMapper.builder().build().readTree(Files.readString(DASHBOARD));
    Map<String, String> exprs = new LinkedHashMap<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        exprs.put(
            "panel '" + panel.path("title").asString() + "' " + target.path("refId").asString(),
            target.path("expr").asString().replace("$table", ".*"));
      }
    }
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      String query = variable.path("query").path("query").asString("");
      Matcher values = Pattern.compile("label_values\\((\\w+),\\s*(\\w+)\\)").matcher(query);
      if (values.matches()) {
        exprs.put(
            "variable $" + variable.path("name").asString(),
            values.group(1) + "{" + values.group(2) + "!=\"\"}");
      }
    }
    return exprs;
  }

  /** Every expression of the rules and the dashboard, and what it needs. */
  public static List<Needs> all() throws IOException {
    List<Needs> needs = new ArrayList<>();
    Map<String, String> exprs = new LinkedHashMap<>(ruleExpressions());
    exprs.putAll(dashboardExpressions());
    exprs.forEach((where, expr) -> needs.add(needs(where, expr)));
    return needs;
  }

  static Needs needs(String where, String expr) {
    Set<String> metrics = new TreeSet<>();
    Matcher names = NAME.matcher(expr);
    while (names.find()) {
      metrics.add(names.group());
    }
    Map<String, Set<String>> selectorLabels = new LinkedHashMap<>();
    Matcher selectors = SELECTOR.matcher(expr);
    while (selectors.find()) {
      Matcher matchers = MATCHER.matcher(selectors.group(2));
      while (matchers.find()) {
        selectorLabels
            .computeIfAbsent(selectors.group(1), k -> new TreeSet<>())
            .add(matchers.group(1));
      }
    }
    Set<String> grouping = new TreeSet<>();
    Matcher groupings = GROUPING.matcher(expr);
    while (groupings.find()) {
      for (String label : groupings.group(1).split(",")) {
        if (!label.isBlank()) {
          grouping.add(label.trim());
        }
      }
    }
    grouping.removeAll(TARGET_LABELS);
    selectorLabels.values().forEach(labels -> labels.removeAll(TARGET_LABELS));
    return new Needs(where, expr, metrics, selectorLabels, grouping);
  }
}
