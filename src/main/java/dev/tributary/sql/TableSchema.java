package dev.tributary.sql;

import java.util.List;

/**
 * The parenthesised part of a table definition: columns, an optional watermark and primary key, and
 * data quality expectations. Absent parts are null or empty.
 */
public record TableSchema(
    List<Column> columns,
    Watermark watermark,
    PrimaryKey primaryKey,
    List<Expectation> expectations) {

  public TableSchema {
    columns = List.copyOf(columns);
    expectations = List.copyOf(expectations);
  }

  /** {@code WATERMARK FOR column AS expression}. */
  public record Watermark(String column, String expression) {}

  /** {@code [CONSTRAINT name] PRIMARY KEY (columns) NOT ENFORCED}; name may be null. */
  public record PrimaryKey(String constraintName, List<String> columns) {
    public PrimaryKey {
      columns = List.copyOf(columns);
    }
  }

  /** {@code CONSTRAINT name EXPECT (expression) [ON VIOLATION ...]}; onViolation null = keep. */
  public record Expectation(String name, String expression, OnViolation onViolation) {}

  /** What happens to a row that fails an expectation. */
  public enum OnViolation {
    DROP_ROW,
    FAIL_UPDATE
  }

  /** True when the schema lists physical columns (with types, or by name only). */
  public static boolean hasPhysicalColumns(TableSchema schema) {
    return schema != null
        && schema.columns().stream().anyMatch(c -> c.kind() == Column.Kind.PHYSICAL);
  }

  /**
   * True when the schema declares the physical columns with their types; without them the physical
   * columns and their types come from the query.
   */
  public static boolean hasDeclaredTypes(TableSchema schema) {
    return schema != null
        && schema.columns().stream()
            .anyMatch(c -> c.kind() == Column.Kind.PHYSICAL && c.type() != null);
  }

  /**
   * True for a column list that only names the physical columns ({@code (a, b) AS ...}): the query
   * must produce exactly those columns, whose order the list gives and whose types it infers.
   */
  public static boolean namesOnly(TableSchema schema) {
    return hasPhysicalColumns(schema) && !hasDeclaredTypes(schema);
  }

  public Column column(String name) {
    return columns.stream().filter(c -> c.name().equals(name)).findFirst().orElse(null);
  }
}
