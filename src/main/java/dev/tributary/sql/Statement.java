package dev.tributary.sql;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A parsed statement. Dispatch with {@link #accept(Visitor)}; every kind has a record here. */
public sealed interface Statement {

  <R> R accept(Visitor<R> visitor);

  /** A short name of the statement kind, e.g. {@code CREATE_MATERIALIZED_TABLE}. */
  String kind();

  /** One method per statement kind; adding a kind breaks every visitor until it handles it. */
  interface Visitor<R> {
    R createMaterializedTable(CreateMaterializedTable s);

    R alterMaterializedTable(AlterMaterializedTable s);

    R dropMaterializedTable(DropMaterializedTable s);

    R showMaterializedTables(ShowMaterializedTables s);

    R showCreateMaterializedTable(ShowCreateMaterializedTable s);

    R showMaterializedTable(ShowMaterializedTable s);

    R describe(Describe s);

    R select(Select s);

    R createPipelineTable(CreatePipelineTable s);

    R createFlow(CreateFlow s);

    R createSourceTable(CreateSourceTable s);

    R dropTable(DropTable s);

    R showTables(ShowTables s);

    R use(Use s);
  }

  /** CREATE [OR ALTER] MATERIALIZED TABLE [IF NOT EXISTS] name ... AS query. */
  record CreateMaterializedTable(
      ObjectName name, boolean orAlter, boolean ifNotExists, MaterializedTableDefinition definition)
      implements Statement {
    public <R> R accept(Visitor<R> v) {
      return v.createMaterializedTable(this);
    }

    public String kind() {
      return orAlter ? "CREATE_OR_ALTER_MATERIALIZED_TABLE" : "CREATE_MATERIALIZED_TABLE";
    }
  }

  /** ALTER MATERIALIZED TABLE name followed by one action. */
  record AlterMaterializedTable(ObjectName name, AlterAction action) implements Statement {
    public <R> R accept(Visitor<R> v) {
      return v.alterMaterializedTable(this);
    }

    public String kind() {
      return "ALTER_MATERIALIZED_TABLE_"
          + action.getClass().getSimpleName().replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase();
    }
  }

  /**
   * What an ALTER MATERIALIZED TABLE does: either it changes the definition ({@link
   * Effect#DEFINITION}, see {@link #applyTo}) or it asks for a change of running state.
   */
  sealed interface AlterAction {
    /** The kinds of change an action makes. */
    enum Effect {
      DEFINITION,
      SUSPEND,
      RESUME,
      REFRESH
    }

    Effect effect();

    /** The definition after this action; actions that change no definition return it as is. */
    default MaterializedTableDefinition applyTo(MaterializedTableDefinition d) {
      return d;
    }

    /** The action as SQL, after {@code ALTER MATERIALIZED TABLE name}. */
    String sql();
  }

  /** ADD (metadata or computed column). */
  record AddColumn(Column column) implements AlterAction {
    public Effect effect() {
      return Effect.DEFINITION;
    }

    public MaterializedTableDefinition applyTo(MaterializedTableDefinition d) {
      TableSchema s =
          d.schema() != null ? d.schema() : new TableSchema(List.of(), null, null, List.of());
      if (s.column(column.name()) != null) {
        throw new IllegalArgumentException("Column '" + column.name() + "' already exists");
      }
      List<Column> columns = new java.util.ArrayList<>(s.columns());
      columns.add(column);
      return d.withSchema(
          new TableSchema(columns, s.watermark(), s.primaryKey(), s.expectations()));
    }

    public String sql() {
      return "ADD (" + Printer.column(column) + ")";
    }
  }

  /** MODIFY WATERMARK FOR column AS expression. */
  record ModifyWatermark(TableSchema.Watermark watermark) implements AlterAction {
    public Effect effect() {
      return Effect.DEFINITION;
    }

    public MaterializedTableDefinition applyTo(MaterializedTableDefinition d) {
      TableSchema s =
          d.schema() != null ? d.schema() : new TableSchema(List.of(), null, null, List.of());
      if (TableSchema.hasPhysicalColumns(s) && s.column(watermark.column()) == null) {
        throw new IllegalArgumentException(
            "The watermark names column '"
                + watermark.column()
                + "', which the table does not have");
      }
      return d.withSchema(
          new TableSchema(s.columns(), watermark, s.primaryKey(), s.expectations()));
    }

    public String sql() {
      return "MODIFY WATERMARK FOR "
          + Printer.identifier(watermark.column())
          + " AS "
          + watermark.expression();
    }
  }

  /** DROP WATERMARK. */
  record DropWatermark() implements AlterAction {
    public Effect effect() {
      return Effect.DEFINITION;
    }

    public MaterializedTableDefinition applyTo(MaterializedTableDefinition d) {
      if (d.schema() == null || d.schema().watermark() == null) {
        throw new IllegalArgumentException("The table has no watermark to drop");
      }
      TableSchema s = d.schema();
      boolean empty = s.columns().isEmpty() && s.primaryKey() == null && s.expectations().isEmpty();
      return d.withSchema(
          empty ? null : new TableSchema(s.columns(), null, s.primaryKey(), s.expectations()));
    }

    public String sql() {
      return "DROP WATERMARK";
    }
  }

  /** SET ('k' = 'v', ...). */
  record SetOptions(Map<String, String> options) implements AlterAction {
    public SetOptions {
      options = java.util.Collections.unmodifiableMap(new TreeMap<>(options));
    }

    public Effect effect() {
      return Effect.DEFINITION;
    }

    public MaterializedTableDefinition applyTo(MaterializedTableDefinition d) {
      Map<String, String> merged = new TreeMap<>(d.options());
      merged.putAll(options);
      return d.withOptions(merged);
    }

    public String sql() {
      return "SET " + Printer.options(options, false);
    }
  }

  /** RESET ('k', ...). */
  record ResetOptions(List<String> keys) implements AlterAction {
    public ResetOptions {
      keys = List.copyOf(keys);
    }

    public Effect effect() {
      return Effect.DEFINITION;
    }

    public MaterializedTableDefinition applyTo(MaterializedTableDefinition d) {
      Map<String, String> remaining = new TreeMap<>(d.options());
      keys.forEach(remaining::remove);
      return d.withOptions(remaining);
    }

    public String sql() {
      return "RESET (" + String.join(", ", keys.stream().map(Printer::string).toList()) + ")";
    }
  }

  /** SUSPEND. */
  record Suspend() implements AlterAction {
    public Effect effect() {
      return Effect.SUSPEND;
    }

    public String sql() {
      return "SUSPEND";
    }
  }

  /** RESUME [WITH ('k' = 'v', ...)]. */
  record Resume(Map<String, String> options) implements AlterAction {
    public Resume {
      options = java.util.Collections.unmodifiableMap(new TreeMap<>(options));
    }

    public Effect effect() {
      return Effect.RESUME;
    }

    public String sql() {
      return "RESUME" + (options.isEmpty() ? "" : " WITH " + Printer.options(options, false));
    }
  }

  /** REFRESH [PARTITION (k = 'v', ...)]. */
  record Refresh(Map<String, String> partition) implements AlterAction {
    public Refresh {
      partition = java.util.Collections.unmodifiableMap(new TreeMap<>(partition));
    }

    public Effect effect() {
      return Effect.REFRESH;
    }

    public String sql() {
      if (partition.isEmpty()) {
        return "REFRESH";
      }
      return "REFRESH PARTITION ("
          + String.join(
              ", ",
              partition.entrySet().stream()
                  .map(e -> Printer.identifier(e.getKey()) + " = " + Printer.string(e.getValue()))
                  .toList())
          + ")";
    }
  }

  /** SET FRESHNESS = INTERVAL ... */
  record SetFreshness(Clauses.Interval freshness) implements AlterAction {
    public Effect effect() {
      return Effect.DEFINITION;
    }

    public MaterializedTableDefinition applyTo(MaterializedTableDefinition d) {
      return d.withFreshness(freshness);
    }

    public String sql() {
      return "SET FRESHNESS = " + freshness.sql();
    }
  }

  /** SET REFRESH MODE = ... */
  record SetRefreshMode(Clauses.RefreshMode mode) implements AlterAction {
    public Effect effect() {
      return Effect.DEFINITION;
    }

    public MaterializedTableDefinition applyTo(MaterializedTableDefinition d) {
      return d.withRefreshMode(mode);
    }

    public String sql() {
      return "SET REFRESH_MODE = " + mode.name();
    }
  }

  /** [(schema)] [clauses] AS query: evolves the table to a new definition. */
  record Evolve(MaterializedTableDefinition definition) implements AlterAction {
    public Effect effect() {
      return Effect.DEFINITION;
    }

    public MaterializedTableDefinition applyTo(MaterializedTableDefinition d) {
      return definition;
    }

    public String sql() {
      return Printer.definition(definition).strip();
    }
  }

  /** DROP MATERIALIZED TABLE [IF EXISTS] name. */
  record DropMaterializedTable(ObjectName name, boolean ifExists) implements Statement {
    public <R> R accept(Visitor<R> v) {
      return v.dropMaterializedTable(this);
    }

    public String kind() {
      return "DROP_MATERIALIZED_TABLE";
    }
  }

  /** SHOW MATERIALIZED TABLES [FROM | IN database] [LIKE 'pattern']; absent parts null. */
  record ShowMaterializedTables(ObjectName database, String like) implements Statement {
    public <R> R accept(Visitor<R> v) {
      return v.showMaterializedTables(this);
    }

    public String kind() {
      return "SHOW_MATERIALIZED_TABLES";
    }
  }

  /** SHOW CREATE MATERIALIZED TABLE name. */
  record ShowCreateMaterializedTable(ObjectName name) implements Statement {
    public <R> R accept(Visitor<R> v) {
      return v.showCreateMaterializedTable(this);
    }

    public String kind() {
      return "SHOW_CREATE_MATERIALIZED_TABLE";
    }
  }

  /** SHOW MATERIALIZED TABLE name: its lineage. */
  record ShowMaterializedTable(ObjectName name) implements Statement {
    public <R> R accept(Visitor<R> v) {
      return v.showMaterializedTable(this);
    }

    public String kind() {
      return "SHOW_MATERIALIZED_TABLE";
    }
  }

  /** DESCRIBE name. */
  record Describe(ObjectName name) implements Statement {
    public <R> R accept(Visitor<R> v) {
      return v.describe(this);
    }

    public String kind() {
      return "DESCRIBE";
    }
  }

  /** SELECT columns FROM table [WHERE a AND b ...] [LIMIT n]; columns ["*"] for all. */
  record Select(List<String> columns, ObjectName from, List<Predicate> where, Integer limit)
      implements Statement {
    public Select {
      columns = List.copyOf(columns);
      where = List.copyOf(where);
    }

    public <R> R accept(Visitor<R> v) {
      return v.select(this);
    }

    public String kind() {
      return "SELECT";
    }
  }

  /**
   * {@code column op literal}: op is one of = <> < <= > >= LIKE, NOT LIKE, IN (values), IS NULL, IS
   * NOT NULL. Literal values are kept as their text; null marks SQL NULL.
   */
  record Predicate(String column, String operator, List<String> values) {
    public Predicate {
      values = java.util.Collections.unmodifiableList(new java.util.ArrayList<>(values));
    }
  }

  /**
   * CREATE TABLE name [(schema)] [clauses] FLOW [IMPORT CHECKPOINT 'p'] INSERT [ONCE] BY NAME
   * query.
   */
  record CreatePipelineTable(
      ObjectName name,
      TableSchema schema,
      List<String> partitionedBy,
      List<String> clusterBy,
      String location,
      String comment,
      Map<String, String> tableProperties,
      RowFilter rowFilter,
      Flow flow)
      implements Statement {
    public CreatePipelineTable {
      partitionedBy = List.copyOf(partitionedBy);
      clusterBy = List.copyOf(clusterBy);
      tableProperties = java.util.Collections.unmodifiableMap(new TreeMap<>(tableProperties));
    }

    public <R> R accept(Visitor<R> v) {
      return v.createPipelineTable(this);
    }

    public String kind() {
      return "CREATE_PIPELINE_TABLE";
    }
  }

  /** WITH ROW FILTER function ON (columns). */
  record RowFilter(ObjectName function, List<String> columns) {
    public RowFilter {
      columns = List.copyOf(columns);
    }
  }

  /** A flow into a pipeline table; the inline flow of CREATE TABLE has no name of its own. */
  record Flow(String name, String importCheckpoint, boolean once, String query) {}

  /** CREATE FLOW name AS INSERT [ONCE] INTO table BY NAME query. */
  record CreateFlow(ObjectName name, ObjectName target, boolean once, String query)
      implements Statement {
    public <R> R accept(Visitor<R> v) {
      return v.createFlow(this);
    }

    public String kind() {
      return "CREATE_FLOW";
    }
  }

  /** CREATE TABLE [IF NOT EXISTS] name (schema) [COMMENT '..'] WITH (connector options). */
  record CreateSourceTable(
      ObjectName name,
      boolean ifNotExists,
      TableSchema schema,
      String comment,
      Map<String, String> options)
      implements Statement {
    public CreateSourceTable {
      options = java.util.Collections.unmodifiableMap(new TreeMap<>(options));
    }

    public <R> R accept(Visitor<R> v) {
      return v.createSourceTable(this);
    }

    public String kind() {
      return "CREATE_TABLE";
    }
  }

  /** DROP TABLE [IF EXISTS] name. */
  record DropTable(ObjectName name, boolean ifExists) implements Statement {
    public <R> R accept(Visitor<R> v) {
      return v.dropTable(this);
    }

    public String kind() {
      return "DROP_TABLE";
    }
  }

  /** SHOW TABLES [FROM | IN database]. */
  record ShowTables(ObjectName database) implements Statement {
    public <R> R accept(Visitor<R> v) {
      return v.showTables(this);
    }

    public String kind() {
      return "SHOW_TABLES";
    }
  }

  /** USE CATALOG name, or USE [catalog.]database (catalog null when only a catalog is named). */
  record Use(String catalog, String database) implements Statement {
    public <R> R accept(Visitor<R> v) {
      return v.use(this);
    }

    public String kind() {
      return database == null ? "USE_CATALOG" : "USE";
    }
  }
}
