package dev.tributary.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.Api;
import dev.tributary.TributaryIT;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The alert rules and the dashboard of {@code deploy/observability} are only as good as the names
 * they query: this scrapes the running service, with a continuous table, a FULL table that has
 * refreshed and a table whose job fails, and checks that every metric the rules and panels name is
 * served with the labels they select and group by, and that every meter says what it is.
 */
@TributaryIT
class MetricsIT {

  static final String DATABASE = "observed";
  static final Pattern SERIES = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? \\S+");
  static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"");

  @LocalServerPort int port;
  Api api;

  @BeforeEach
  void setUp() {
    api = new Api(port);
  }

  @AfterEach
  void dropTables() {
    api.dropMaterializedTables("examples", DATABASE);
  }

  @Test
  void shouldServeEveryMetricAndLabelTheAlertsAndTheDashboardUse() throws Exception {
    ok(
        "CREATE MATERIALIZED TABLE live FRESHNESS = INTERVAL '2' SECOND AS SELECT order_id, price"
            + " FROM examples.marketplace.orders");
    ok(
        "CREATE MATERIALIZED TABLE totals WITH ('refresh.on-create' = 'true') FRESHNESS ="
            + " INTERVAL '1' HOUR REFRESH MODE = FULL AS SELECT customer_id, count(*) AS n FROM"
            + " examples.marketplace.orders GROUP BY customer_id");
    ok(
        "CREATE MATERIALIZED TABLE broken FRESHNESS = INTERVAL '2' SECOND AS SELECT order_id,"
            + " CAST(order_id AS INT) AS n FROM examples.marketplace.orders");
    List<ObservabilityFiles.Needs> needs = ObservabilityFiles.all();
    assertThat(needs).hasSizeGreaterThan(15);

    String scrape =
        await()
            .atMost(Duration.ofSeconds(150))
            .pollInterval(Duration.ofSeconds(1))
            .until(
                () -> api.get("/actuator/prometheus").text(),
                text ->
                    missing(series(text), needs).isEmpty()
                        && text.contains(
                            "tributary_table_failures_total{reason=\"JobFailed\","
                                + "table=\"examples.observed.broken\"}")
                        && text.contains(
                            "tributary_refresh_duration_seconds_count{outcome=\"succeeded\","
                                + "table=\"examples.observed.totals\"}")
                        // The phase gauges are read once per reconcile round: a round after the
                        // refresh's duration is recorded.
                        && text.contains(
                            "tributary_table_info{phase=\"RUNNING\",refresh_mode=\"FULL\","
                                + "table=\"examples.observed.totals\"} 1"));

    Map<String, Set<String>> served = series(scrape);
    assertThat(missing(served, needs)).isEmpty();
    assertThat(scrape)
        .contains(
            "tributary_table_info{phase=\"RUNNING\",refresh_mode=\"FULL\","
                + "table=\"examples.observed.totals\"} 1")
        .contains("tributary_table_freshness_seconds{table=\"examples.observed.totals\"} 3600")
        .contains("tributary_table_freshness_seconds{table=\"examples.observed.live\"} 2")
        .containsPattern(
            "tributary_table_info\\{phase=\"RUNNING\",refresh_mode=\"CONTINUOUS\","
                + "table=\"examples.observed.live\"} 1")
        .contains("tributary_dependency_up{system=\"kafka\"} 1")
        .contains("tributary_dependency_up{system=\"schemaRegistry\"} 1")
        .contains("tributary_dependency_up{system=\"flink\"} 1")
        // A sweep began within the resync interval (30 s), plus the 5 s the gauge is read at.
        .containsPattern("tributary_reconcile_sweep_age_seconds ([0-9]|[1-2][0-9]|3[0-5])\\.0\\b");
    assertThat(helpless(scrape)).as("meters without HELP text").isEmpty();

    // A dropped table's own series go with it (a replica would otherwise keep them until it
    // restarts): its failures counter and the FULL table's refresh timer.
    ok("DROP MATERIALIZED TABLE broken");
    ok("DROP MATERIALIZED TABLE totals");
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () ->
                assertThat(api.get("/actuator/prometheus").text())
                    .doesNotContain("table=\"examples.observed.broken\"")
                    .doesNotContain("table=\"examples.observed.totals\""));
  }

  /** What each expression names that the scrape does not serve, as readable lines. */
  static List<String> missing(Map<String, Set<String>> served, List<ObservabilityFiles.Needs> all) {
    List<String> missing = new ArrayList<>();
    for (ObservabilityFiles.Needs needs : all) {
      Set<String> labels = new TreeSet<>();
      for (String metric : needs.metrics()) {
        if (!served.containsKey(metric)) {
          missing.add(needs.where() + ": no series " + metric);
        } else {
          labels.addAll(served.get(metric));
        }
      }
      needs
          .selectorLabels()
          .forEach(
              (metric, selected) -> {
                for (String label : selected) {
                  if (served.containsKey(metric) && !served.get(metric).contains(label)) {
                    missing.add(needs.where() + ": " + metric + " has no label " + label);
                  }
                }
              });
      for (String label : needs.groupingLabels()) {
        if (!labels.isEmpty() && !labels.contains(label)) {
          missing.add(needs.where() + ": none of " + needs.metrics() + " has label " + label);
        }
      }
    }
    return missing;
  }

  /** Series name to the label names seen on it. */
  static Map<String, Set<String>> series(String scrape) {
    Map<String, Set<String>> series = new HashMap<>();
    for (String line : scrape.split("\n")) {
      Matcher m = SERIES.matcher(line);
      if (line.startsWith("#") || !m.find()) {
        continue;
      }
      Set<String> labels = series.computeIfAbsent(m.group(1), k -> new TreeSet<>());
      if (m.group(2) != null) {
        Matcher label = LABEL.matcher(m.group(2));
        while (label.find()) {
          labels.add(label.group(1));
        }
      }
    }
    return series;
  }

  /** The service's meters whose HELP line is empty. */
  static List<String> helpless(String scrape) {
    List<String> helpless = new ArrayList<>();
    Matcher help = Pattern.compile("(?m)^# HELP (tributary_\\S+)(.*)$").matcher(scrape);
    while (help.find()) {
      if (help.group(2).isBlank()) {
        helpless.add(help.group(1));
      }
    }
    return helpless;
  }

  private void ok(String statement) {
    Api.Answer answer = api.sql(statement, "examples", DATABASE);
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
  }
}
