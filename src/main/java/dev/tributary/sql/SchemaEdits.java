package dev.tributary.sql;

import java.util.ArrayList;
import java.util.List;

/** The small edits ALTER actions make to a declared schema. */
final class SchemaEdits {

  private SchemaEdits() {}

  /** The declared schema, or an empty one when the schema is wholly inferred. */
  static TableSchema of(MaterializedTableDefinition d) {
    return d.schema() != null ? d.schema() : new TableSchema(List.of(), null, null, List.of());
  }

  static TableSchema with(TableSchema s, List<Column> columns) {
    return orNull(new TableSchema(columns, s.watermark(), s.primaryKey(), s.expectations()));
  }

  /** An empty schema is no schema: every column is inferred from the query. */
  static TableSchema orNull(TableSchema s) {
    boolean empty =
        s.columns().isEmpty()
            && s.watermark() == null
            && s.primaryKey() == null
            && s.expectations().isEmpty();
    return empty ? null : s;
  }

  static int find(List<Column> columns, String name) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  static void insert(List<Column> columns, Column column, Statement.ColumnPosition position) {
    if (position.first()) {
      columns.add(0, column);
    } else if (position.after() != null) {
      int at = find(columns, position.after());
      if (at < 0) {
        throw new IllegalArgumentException(
            "AFTER names column '" + position.after() + "', which the table does not declare");
      }
      columns.add(at + 1, column);
    } else {
      columns.add(column);
    }
  }

  /** A column that the key, the watermark or the distribution names cannot be dropped. */
  static void requireUnused(TableSchema s, Clauses.Distribution distribution, String name) {
    String user = null;
    if (s.primaryKey() != null && s.primaryKey().columns().contains(name)) {
      user = "the primary key";
    } else if (s.watermark() != null && s.watermark().column().equals(name)) {
      user = "the watermark";
    } else if (distribution != null && distribution.columns().contains(name)) {
      user = "DISTRIBUTED BY";
    }
    if (user != null) {
      throw new IllegalArgumentException(
          "Column '" + name + "' is used by " + user + "; change that first");
    }
  }

  /** ( column [FIRST | AFTER c], ... ) as SQL. */
  static String sql(
      List<Statement.PositionedColumn> columns,
      TableSchema.PrimaryKey primaryKey,
      TableSchema.Watermark watermark) {
    List<String> entries = new ArrayList<>();
    columns.forEach(c -> entries.add(Printer.column(c.column()) + c.position().sql()));
    if (primaryKey != null) {
      entries.add(Printer.primaryKey(primaryKey));
    }
    if (watermark != null) {
      entries.add(Printer.watermark(watermark));
    }
    return "(" + String.join(", ", entries) + ")";
  }

  /** The schema with these columns, and a new key and watermark where given. */
  static TableSchema with(
      TableSchema s,
      List<Column> columns,
      TableSchema.PrimaryKey primaryKey,
      TableSchema.Watermark watermark) {
    TableSchema edited = with(s, columns);
    if (primaryKey == null && watermark == null) {
      return edited;
    }
    TableSchema base =
        edited != null ? edited : new TableSchema(List.of(), null, null, s.expectations());
    if (watermark != null
        && TableSchema.hasPhysicalColumns(base)
        && base.column(watermark.column()) == null) {
      throw new IllegalArgumentException(
          "The watermark names column '" + watermark.column() + "', which the table does not have");
    }
    return new TableSchema(
        base.columns(),
        watermark != null ? watermark : base.watermark(),
        primaryKey != null ? primaryKey : base.primaryKey(),
        base.expectations());
  }
}
