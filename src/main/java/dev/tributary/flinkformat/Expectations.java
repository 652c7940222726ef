package dev.tributary.flinkformat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.util.FlinkRuntimeException;

/**
 * The data quality expectations of a table, evaluated on each row its job writes: {@code
 * tributary_expectations(spec, sample, ok1, ok2, ...)} is TRUE when the row is written. {@code
 * spec} lists the expectations in the order of their results, one per line as {@code action:name},
 * with action {@code keep} (the row is written and counted), {@code drop} (it is not written) or
 * {@code fail} (the job fails with {@link Violation}, naming the expectation and showing {@code
 * sample}, the row as JSON). A result that is not TRUE (FALSE or NULL) is a violation. Every
 * expectation is evaluated and counted on every row, in one call, so that no expectation hides rows
 * from another.
 *
 * <p>Counts are the counters {@code passed} and {@code failed} in the group {@code
 * tributary_expectation.<name>} of the operator's metric group, which the control plane reads from
 * the JobManager's REST API. Non-deterministic, so that the planner never merges or drops it.
 */
public class Expectations extends ScalarFunction {

  /** The SQL name the control plane registers this function under. */
  public static final String SQL_NAME = "tributary_expectations";

  /** The metric group of the counters; the expectation's name is the next group. */
  public static final String METRIC_GROUP = "tributary_expectation";

  /** Thrown for a FAIL UPDATE violation; its message starts with {@link #MARKER}. */
  public static final class Violation extends FlinkRuntimeException {
    public static final String MARKER = "EXPECTATION_VIOLATION";

    Violation(String name, String sample) {
      super(
          MARKER
              + ": expectation '"
              + name
              + "' (ON VIOLATION FAIL UPDATE) failed on row "
              + (sample == null ? "(not shown)" : sample));
    }
  }

  private record Check(String action, String name, Counter passed, Counter failed) {}

  private transient MetricGroup metrics;
  private transient String parsedSpec;
  private transient List<Check> checks;
  private transient Map<String, Check> counted;

  @Override
  public void open(FunctionContext context) {
    metrics = context.getMetricGroup();
    counted = new HashMap<>();
  }

  public Boolean eval(String spec, String sample, Boolean... results) {
    List<Check> all = checks(spec);
    boolean write = true;
    for (int i = 0; i < all.size(); i++) {
      Check check = all.get(i);
      boolean ok = i < results.length && Boolean.TRUE.equals(results[i]);
      if (ok) {
        check.passed().inc();
        continue;
      }
      check.failed().inc();
      switch (check.action()) {
        case "drop" -> write = false;
        case "fail" -> throw new Violation(check.name(), sample);
        default -> {} // keep: written, and counted as failed
      }
    }
    return write;
  }

  @Override
  public boolean isDeterministic() {
    return false;
  }

  private List<Check> checks(String spec) {
    if (spec.equals(parsedSpec)) {
      return checks;
    }
    List<Check> parsed = new ArrayList<>();
    for (String line : spec.split("\n")) {
      int colon = line.indexOf(':');
      String action = line.substring(0, colon);
      String name = line.substring(colon + 1);
      parsed.add(
          counted.computeIfAbsent(
              line,
              l -> {
                MetricGroup group = metrics.addGroup(METRIC_GROUP).addGroup(metricName(name));
                return new Check(action, name, group.counter("passed"), group.counter("failed"));
              }));
    }
    parsedSpec = spec;
    checks = parsed;
    return parsed;
  }

  /** An expectation's name as a metric group: letters, digits and underscores. */
  public static String metricName(String name) {
    return name.replaceAll("[^A-Za-z0-9_]", "_");
  }
}
