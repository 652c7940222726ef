package dev.tributary.catalog;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/** A source table: physical columns, an optional watermark and the connector options. */
public record SourceTableDefinition(
    String name, List<Column> columns, Optional<Watermark> watermark, Map<String, String> options) {

  public SourceTableDefinition {
    columns = List.copyOf(columns);
    options = Map.copyOf(options);
  }

  /** A physical column. */
  public record Column(String name, String type, boolean nullable) {}

  /** {@code WATERMARK FOR column AS expression}. */
  public record Watermark(String column, String expression) {}

  /** The CREATE TABLE statement that declares this table in a Flink session under that name. */
  public String createStatement(String qualifiedName) {
    StringBuilder sql = new StringBuilder("CREATE TABLE ").append(qualifiedName).append(" (\n");
    sql.append(
        columns.stream()
            .map(c -> "  `" + c.name() + "` " + c.type() + (c.nullable() ? "" : " NOT NULL"))
            .collect(Collectors.joining(",\n")));
    watermark.ifPresent(
        w ->
            sql.append(",\n  WATERMARK FOR `")
                .append(w.column())
                .append("` AS ")
                .append(w.expression()));
    sql.append("\n) WITH (\n");
    sql.append(
        options.entrySet().stream()
            .sorted(Map.Entry.comparingByKey())
            .map(e -> "  " + quote(e.getKey()) + " = " + quote(e.getValue()))
            .collect(Collectors.joining(",\n")));
    return sql.append("\n)").toString();
  }

  private static String quote(String literal) {
    return "'" + literal.replace("'", "''") + "'";
  }
}
