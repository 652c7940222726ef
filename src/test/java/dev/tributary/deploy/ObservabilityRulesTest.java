package dev.tributary.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alert rules and the dashboard, checked by Prometheus' own tool ({@code promtool}, from
 * Debian's {@code prometheus} package): the rules load, their unit tests (series in, alerts out)
 * pass, and every dashboard query parses. {@code .ci/run} installs the package and sets {@code
 * TRIBUTARY_PROMTOOL=required}, so there a missing promtool fails instead of skipping.
 */
class ObservabilityRulesTest {

  static final Path PROMTOOL = Path.of("/usr/bin/promtool");

  @BeforeAll
  static void promtool() {
    boolean present = Files.isExecutable(PROMTOOL);
    if (!present && "required".equals(System.getenv("TRIBUTARY_PROMTOOL"))) {
      throw new IllegalStateException(
          "promtool is required here (TRIBUTARY_PROMTOOL=required) but "
              + PROMTOOL
              + " is missing; install Debian's prometheus package");
    }
    assumeTrue(present, "No " + PROMTOOL + ": apt-get install prometheus to run these checks");
  }

  @Test
  void shouldLoadTheAlertRules() throws Exception {
    Result check = promtool("check", "rules", ObservabilityFiles.RULES.toString());

    assertThat(check.exit()).as(check.output()).isZero();
    assertThat(check.output())
        .contains("SUCCESS: " + ObservabilityFiles.ruleExpressions().size() + " rules found");
  }

  @Test
  void shouldPassTheAlertRulesUnitTests() throws Exception {
    Result test = promtool("test", "rules", ObservabilityFiles.RULE_TESTS.toString());

    assertThat(test.exit()).as(test.output()).isZero();
    assertThat(test.output()).contains("SUCCESS");
  }

  @Test
  void shouldTestEveryAlert() throws Exception {
    String tests = Files.readString(ObservabilityFiles.RULE_TESTS);

    for (String rule : ObservabilityFiles.ruleExpressions().keySet()) {
      String alert = rule.substring("rule ".length());
      assertThat(tests)
          .as("alerts-test.yml expects %s to fire somewhere", alert)
          .containsPattern("alertname: " + alert + "\\s+exp_alerts:\\s+- exp_labels");
    }
  }

  /** promtool has no command that parses a bare query: each becomes a recording rule. */
  @Test
  void shouldParseEveryDashboardQuery(@TempDir Path dir) throws Exception {
    Map<String, String> queries = ObservabilityFiles.dashboardExpressions();
    StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
    int n = 0;
    for (String expr : queries.values()) {
      rules
          .append("      - record: dashboard_query_")
          .append(n++)
          .append("\n        expr: '")
          .append(expr.replace("'", "''"))
          .append("'\n");
    }
    Path file = dir.resolve("dashboard-queries.yml");
    Files.writeString(file, rules);

    Result check = promtool("check", "rules", file.toString());

    assertThat(check.exit()).as(check.output() + "\n" + rules).isZero();
    assertThat(check.output()).contains("SUCCESS: " + queries.size() + " rules found");
  }

  @Test
  void shouldFailARuleTestThatExpectsTheWrongAlert(@TempDir Path dir) throws Exception {
    // The check can fail: a copy of the tests that expects the FAILED-table alert too early.
    String tests =
        Files.readString(ObservabilityFiles.RULE_TESTS)
            .replace(
                "rule_files:\n  - alerts.yml",
                "rule_files:\n  - " + ObservabilityFiles.RULES.toAbsolutePath())
            .replaceFirst(
                "eval_time: 30s\n        alertname: TributaryTableFailed\n        exp_alerts: \\[]",
                "eval_time: 30s\n        alertname: TributaryTableFailed\n        exp_alerts:"
                    + " [{exp_labels: {severity: page, table: c.d.orders}}]");
    Path file = dir.resolve("wrong-test.yml");
    Files.writeString(file, tests);

    Result test = promtool("test", "rules", file.toString());

    assertThat(test.exit()).as(test.output()).isNotZero();
    assertThat(test.output()).contains("TributaryTableFailed");
  }

  record Result(int exit, String output) {}

  static Result promtool(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(PROMTOOL.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Result(process.exitValue(), output);
  }
}
