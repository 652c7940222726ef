package dev.tributary.catalog;

import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Printer;
import dev.tributary.sql.Statement;
import dev.tributary.sql.TableSchema;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/** A source table: its schema, an optional comment and the connector options. */
public record SourceTableDefinition(
    String name, TableSchema schema, String comment, Map<String, String> options) {

  public SourceTableDefinition {
    options = Collections.unmodifiableMap(new TreeMap<>(options));
  }

  public static SourceTableDefinition of(Statement.CreateSourceTable statement) {
    return new SourceTableDefinition(
        statement.name().name(), statement.schema(), statement.comment(), statement.options());
  }

  /** The CREATE TABLE statement that declares this table in a Flink session under that name. */
  public String createStatement(ObjectName qualifiedName) {
    return Printer.print(
        new Statement.CreateSourceTable(qualifiedName, false, schema, comment, options));
  }
}
