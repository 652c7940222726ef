package dev.tributary.adapter.flink;

import dev.tributary.port.DependencyUnavailableException;
import dev.tributary.port.ExternalSystem;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.FlinkSql.ChangelogMode;
import dev.tributary.port.FlinkSql.Column;
import dev.tributary.port.FlinkSql.RowKind;
import dev.tributary.port.FlinkSql.Session;
import dev.tributary.port.FlinkSql.StatementFailedException;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a query produces, asked of Flink with statements: its columns through a probe view and
 * DESCRIBE, its changelog through EXPLAIN CHANGELOG_MODE. The same statements whether the gateway
 * answers ({@link GatewayFlinkSql}) or the planner in this process does ({@link PlannerFlinkSql}),
 * so that both print types and report errors alike.
 */
final class QueryProbes {

  private static final Pattern CHANGELOG_MODE = Pattern.compile("changelogMode=\\[([A-Z,]*)]");
  private static final String OPTIMIZED_PLAN = "== Optimized Physical Plan ==";

  private QueryProbes() {}

  static List<Column> inferSchema(FlinkSql sql, Session session, String query) {
    String view = "tributary_probe_" + UUID.randomUUID().toString().replace("-", "");
    String prefix = "CREATE TEMPORARY VIEW `" + view + "` AS ";
    around(
        prefix,
        () -> {
          sql.configure(session, prefix + query);
          return null;
        });
    try {
      // DESCRIBE rows: name, type, null, key, extras, watermark.
      return sql.execute(session, "DESCRIBE `" + view + "`").rows().stream()
          .map(
              row ->
                  new Column(
                      String.valueOf(row.get(0)),
                      withoutTimeAttribute(String.valueOf(row.get(1))),
                      Boolean.TRUE.equals(row.get(2))))
          .toList();
    } finally {
      sql.configure(session, "DROP TEMPORARY VIEW IF EXISTS `" + view + "`");
    }
  }

  static ChangelogMode changelogMode(FlinkSql sql, Session session, String query) {
    String prefix = "EXPLAIN CHANGELOG_MODE ";
    FlinkSql.StatementResult plan = around(prefix, () -> sql.execute(session, prefix + query));
    String text = plan.rows().isEmpty() ? "" : String.valueOf(plan.rows().get(0).get(0));
    return parseChangelogMode(text);
  }

  /**
   * Runs a statement of {@code prefix + query}; an error position on the first line is shifted so
   * that it points into the user's query rather than into the wrapper.
   */
  private static <T> T around(String prefix, Supplier<T> statement) {
    try {
      return statement.get();
    } catch (StatementFailedException e) {
      if (e.line() != 1 || e.column() <= prefix.length()) {
        throw e;
      }
      int column = e.column() - prefix.length();
      String message = e.getMessage().replace("column " + e.column(), "column " + column);
      throw new StatementFailedException(message, 1, column, e.causes());
    }
  }

  /** The root node of the optimized physical plan carries the query's changelog mode. */
  static ChangelogMode parseChangelogMode(String explain) {
    int start = explain.indexOf(OPTIMIZED_PLAN);
    Matcher m = CHANGELOG_MODE.matcher(start < 0 ? explain : explain.substring(start));
    if (!m.find()) {
      throw new DependencyUnavailableException(
          ExternalSystem.FLINK, "EXPLAIN CHANGELOG_MODE returned no changelog mode", null);
    }
    Set<RowKind> kinds = EnumSet.noneOf(RowKind.class);
    for (String kind : m.group(1).split(",")) {
      switch (kind.strip()) {
        case "I" -> kinds.add(RowKind.INSERT);
        case "UB" -> kinds.add(RowKind.UPDATE_BEFORE);
        case "UA" -> kinds.add(RowKind.UPDATE_AFTER);
        case "D" -> kinds.add(RowKind.DELETE);
        default -> {}
      }
    }
    return new ChangelogMode(kinds);
  }

  static String withoutTimeAttribute(String type) {
    return type.replace(" *ROWTIME*", "").replace(" *PROCTIME*", "").strip();
  }
}
