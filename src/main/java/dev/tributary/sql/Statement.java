package dev.tributary.sql;

import java.util.ArrayList;
import java.util.Collections;
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

    R dropFlow(DropFlow s);

    R alterFlow(AlterFlow s);

    R alterPipelineTable(AlterPipelineTable s);

    R showFlows(ShowFlows s);

    R refreshTable(RefreshTable s);

    R createSourceTable(CreateSourceTable s);

    R dropTable(DropTable s);

    R showTables(ShowTables s);

    R use(Use s);

    R explain(Explain s);
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

  /** Where an added or modified column goes: at the end, FIRST, or AFTER another column. */
  record ColumnPosition(boolean first, String after) {
    public static final ColumnPosition END = new ColumnPosition(false, null);

    String sql() {
      return first ? " FIRST" : after != null ? " AFTER " + Printer.identifier(after) : "";
    }
  }

  /** A column of an ADD or MODIFY, with where it goes. */
  record PositionedColumn(Column column, ColumnPosition position) {}

  /**
   * ADD (column [FIRST | AFTER c], ..., [PRIMARY KEY (...) NOT ENFORCED], [WATERMARK FOR ...]):
   * metadata, computed or physical columns, and with them the table's key and watermark, which it
   * must not have yet (as in Flink).
   */
  record AddColumns(
      List<PositionedColumn> columns,
      TableSchema.PrimaryKey primaryKey,
      TableSchema.Watermark watermark)
      implements AlterAction {
    public AddColumns {
      columns = List.copyOf(columns);
    }

    public AddColumns(List<PositionedColumn> columns) {
      this(columns, null, null);
    }

    public Effect effect() {
      return Effect.DEFINITION;
    }

    public MaterializedTableDefinition applyTo(MaterializedTableDefinition d) {
      TableSchema s = SchemaEdits.of(d);
      List<Column> next = new ArrayList<>(s.columns());
      for (PositionedColumn c : columns) {
        if (SchemaEdits.find(next, c.column().name()) >= 0) {
          throw new IllegalArgumentException(
              "Column '" + c.column().name() + "' already exists; use MODIFY to change it");
        }
        SchemaEdits.insert(next, c.column(), c.position());
      }
      if (primaryKey != null && s.primaryKey() != null) {
        throw new IllegalArgumentException(
            "The table already has a primary key " + s.primaryKey().columns() + "; use MODIFY");
      }
      if (watermark != null && s.watermark() != null) {
        throw new IllegalArgumentException(
            "The table already has a watermark (on "
                + s.watermark().column()
                + "); use MODIFY WATERMARK");
      }
      return d.withSchema(SchemaEdits.with(s, next, primaryKey, watermark));
    }

    public String sql() {
      return "ADD " + SchemaEdits.sql(columns, primaryKey, watermark);
    }
  }

  /**
   * MODIFY (column [FIRST | AFTER c], ..., [PRIMARY KEY ...], [WATERMARK FOR ...]): a new
   * definition for existing columns, and for the key and the watermark, which the table must have
   * already.
   */
  record ModifyColumns(
      List<PositionedColumn> columns,
      TableSchema.PrimaryKey primaryKey,
      TableSchema.Watermark watermark)
      implements AlterAction {
    public ModifyColumns {
      columns = List.copyOf(columns);
    }

    public ModifyColumns(List<PositionedColumn> columns) {
      this(columns, null, null);
    }

    public Effect effect() {
      return Effect.DEFINITION;
    }

    public MaterializedTableDefinition applyTo(MaterializedTableDefinition d) {
      TableSchema s = SchemaEdits.of(d);
      List<Column> next = new ArrayList<>(s.columns());
      for (PositionedColumn c : columns) {
        int at = SchemaEdits.find(next, c.column().name());
        if (at < 0) {
          throw new IllegalArgumentException(
              "Column '"
                  + c.column().name()
                  + "' is not declared in the table's schema; use ADD, or evolve the query");
        }
        if (c.position().equals(ColumnPosition.END)) {
          next.set(at, c.column());
        } else {
          next.remove(at);
          SchemaEdits.insert(next, c.column(), c.position());
        }
      }
      if (primaryKey != null && s.primaryKey() == null) {
        throw new IllegalArgumentException("The table has no primary key to modify; use ADD");
      }
      if (watermark != null && s.watermark() == null) {
        throw new IllegalArgumentException("The table has no watermark to modify; use ADD");
      }
      return d.withSchema(SchemaEdits.with(s, next, primaryKey, watermark));
    }

    public String sql() {
      return "MODIFY " + SchemaEdits.sql(columns, primaryKey, watermark);
    }
  }

  /** DROP (c, ...) or DROP c. */
  record DropColumns(List<String> names) implements AlterAction {
    public DropColumns {
      names = List.copyOf(names);
    }

    public Effect effect() {
      return Effect.DEFINITION;
    }

    public MaterializedTableDefinition applyTo(MaterializedTableDefinition d) {
      TableSchema s = SchemaEdits.of(d);
      List<Column> next = new ArrayList<>(s.columns());
      for (String name : names) {
        int at = SchemaEdits.find(next, name);
        if (at < 0) {
          throw new IllegalArgumentException(
              "Column '" + name + "' is not declared in the table's schema");
        }
        SchemaEdits.requireUnused(s, d.distribution(), name);
        next.remove(at);
      }
      return d.withSchema(SchemaEdits.with(s, next));
    }

    public String sql() {
      return "DROP (" + String.join(", ", names.stream().map(Printer::identifier).toList()) + ")";
    }
  }

  /** ADD [CONSTRAINT n] PRIMARY KEY (...) NOT ENFORCED, or MODIFY it ({@code replace}). */
  record SetPrimaryKey(TableSchema.PrimaryKey primaryKey, boolean replace) implements AlterAction {
    public Effect effect() {
      return Effect.DEFINITION;
    }

    public MaterializedTableDefinition applyTo(MaterializedTableDefinition d) {
      TableSchema s = SchemaEdits.of(d);
      if (!replace && s.primaryKey() != null) {
        throw new IllegalArgumentException(
            "The table already has a primary key " + s.primaryKey().columns() + "; use MODIFY");
      }
      if (replace && s.primaryKey() == null) {
        throw new IllegalArgumentException("The table has no primary key to modify; use ADD");
      }
      return d.withSchema(
          new TableSchema(s.columns(), s.watermark(), primaryKey, s.expectations()));
    }

    public String sql() {
      return (replace ? "MODIFY " : "ADD ") + Printer.primaryKey(primaryKey);
    }
  }

  /** DROP PRIMARY KEY, or DROP CONSTRAINT name (the key's constraint). */
  record DropPrimaryKey(String constraintName) implements AlterAction {
    public Effect effect() {
      return Effect.DEFINITION;
    }

    public MaterializedTableDefinition applyTo(MaterializedTableDefinition d) {
      TableSchema s = SchemaEdits.of(d);
      if (s.primaryKey() == null) {
        throw new IllegalArgumentException("The table has no primary key to drop");
      }
      if (constraintName != null && !constraintName.equals(s.primaryKey().constraintName())) {
        throw new IllegalArgumentException(
            "The table has no constraint named '" + constraintName + "'");
      }
      return d.withSchema(
          SchemaEdits.orNull(new TableSchema(s.columns(), s.watermark(), null, s.expectations())));
    }

    public String sql() {
      return constraintName == null
          ? "DROP PRIMARY KEY"
          : "DROP CONSTRAINT " + Printer.identifier(constraintName);
    }
  }

  /** ADD DISTRIBUTION, MODIFY DISTRIBUTION ({@code replace}) or DROP DISTRIBUTION (null). */
  record SetDistribution(Clauses.Distribution distribution, boolean replace)
      implements AlterAction {
    public Effect effect() {
      return Effect.DEFINITION;
    }

    public MaterializedTableDefinition applyTo(MaterializedTableDefinition d) {
      if (distribution != null && !replace && d.distribution() != null) {
        throw new IllegalArgumentException(
            "The table already has a distribution; use MODIFY DISTRIBUTION");
      }
      if ((distribution == null || replace) && d.distribution() == null) {
        throw new IllegalArgumentException("The table has no distribution to change");
      }
      return d.withDistribution(distribution);
    }

    public String sql() {
      if (distribution == null) {
        return "DROP DISTRIBUTION";
      }
      return (replace ? "MODIFY " : "ADD ") + Printer.distribution(distribution, "DISTRIBUTION");
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
      return "MODIFY " + Printer.watermark(watermark);
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
      options = Collections.unmodifiableMap(new TreeMap<>(options));
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
      options = Collections.unmodifiableMap(new TreeMap<>(options));
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
      partition = Collections.unmodifiableMap(new TreeMap<>(partition));
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

  /**
   * [(schema)] [clauses] AS query: a new query. As in Flink, only what the statement says changes:
   * a clause it does not repeat keeps its current value, and without a column list the computed and
   * metadata columns, the watermark and the primary key stay while the physical columns are
   * inferred from the new query.
   */
  record Evolve(MaterializedTableDefinition definition) implements AlterAction {
    public Effect effect() {
      return Effect.DEFINITION;
    }

    public MaterializedTableDefinition applyTo(MaterializedTableDefinition d) {
      TableSchema schema = definition.schema();
      if (schema == null && d.schema() != null) {
        TableSchema old = d.schema();
        schema =
            SchemaEdits.orNull(
                new TableSchema(
                    old.columns().stream().filter(c -> c.kind() != Column.Kind.PHYSICAL).toList(),
                    old.watermark(),
                    old.primaryKey(),
                    old.expectations()));
      }
      Map<String, String> options = new TreeMap<>(d.options());
      options.putAll(definition.options());
      return new MaterializedTableDefinition(
          schema,
          definition.comment() != null ? definition.comment() : d.comment(),
          definition.partitionedBy().isEmpty() ? d.partitionedBy() : definition.partitionedBy(),
          definition.distribution() != null ? definition.distribution() : d.distribution(),
          options,
          definition.freshness() != null ? definition.freshness() : d.freshness(),
          definition.refreshMode() != null ? definition.refreshMode() : d.refreshMode(),
          definition.startMode() != null ? definition.startMode() : d.startMode(),
          definition.query());
    }

    public String sql() {
      return Printer.definition(definition).strip();
    }
  }

  /** EXPLAIN of a change: the plan it would carry out, with no side effect. */
  record Explain(Statement statement) implements Statement {
    public <R> R accept(Visitor<R> v) {
      return v.explain(this);
    }

    public String kind() {
      return "EXPLAIN";
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
      values = Collections.unmodifiableList(new ArrayList<>(values));
    }
  }

  /**
   * CREATE TABLE name [(schema)] [clauses] FLOW [IMPORT CHECKPOINT 'p'] INSERT [ONCE] BY NAME
   * query; also CREATE [OR REFRESH] STREAMING TABLE name [(schema)] [clauses] [AS query], whose
   * flow is null when it has no query (its flows come with CREATE FLOW).
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
      tableProperties = Collections.unmodifiableMap(new TreeMap<>(tableProperties));
    }

    public <R> R accept(Visitor<R> v) {
      return v.createPipelineTable(this);
    }

    /** The same statement with {@code properties} for its TBLPROPERTIES. */
    public CreatePipelineTable withTableProperties(Map<String, String> properties) {
      return new CreatePipelineTable(
          name, schema, partitionedBy, clusterBy, location, comment, properties, rowFilter, flow);
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
  /**
   * The flow clause of CREATE TABLE ... FLOW: [IMPORT CHECKPOINT 'path'] INSERT [ONCE] [BY NAME]
   * query.
   */
  record Flow(String importCheckpoint, boolean once, boolean byName, String query) {}

  /**
   * CREATE FLOW name [COMMENT 'c'] AS INSERT INTO [ONCE] table [BY NAME] query; also the flow a
   * CREATE TABLE ... FLOW defines, which has the table's name. {@code STREAM(s)} and {@code STREAM
   * s} in the query are kept as written; Kafka tables are read as streams anyway.
   */
  record CreateFlow(
      ObjectName name,
      String comment,
      ObjectName target,
      String importCheckpoint,
      boolean once,
      boolean byName,
      String query,
      Cdc cdc)
      implements Statement {

    /** An INSERT flow. */
    public CreateFlow(
        ObjectName name,
        String comment,
        ObjectName target,
        String importCheckpoint,
        boolean once,
        boolean byName,
        String query) {
      this(name, comment, target, importCheckpoint, once, byName, query, null);
    }

    public <R> R accept(Visitor<R> v) {
      return v.createFlow(this);
    }

    public String kind() {
      return "CREATE_FLOW";
    }

    /** The flow a CREATE TABLE ... FLOW defines: named as its table. */
    public static CreateFlow of(ObjectName table, Flow flow) {
      return new CreateFlow(
          table, null, table, flow.importCheckpoint(), flow.once(), flow.byName(), flow.query());
    }

    public CreateFlow withNames(ObjectName newName, ObjectName newTarget) {
      return new CreateFlow(
          newName, comment, newTarget, importCheckpoint, once, byName, query, cdc);
    }
  }

  /**
   * AUTO CDC INTO table FROM source KEYS (k, ...) [APPLY AS DELETE WHEN condition] SEQUENCE BY
   * column [COLUMNS (c, ...) | COLUMNS * EXCEPT (c, ...)] [STORED AS SCD TYPE 1 | 2]. SCD TYPE 1
   * (the default): the latest row of each key by the sequence column, deleted when the condition
   * holds for it. SCD TYPE 2: every version of each key, from its sequence value ({@code
   * __START_AT}) to the next change's ({@code __END_AT}, null while current); a delete closes the
   * open version. {@code columns} empty means all (but {@code except}).
   */
  record Cdc(
      ObjectName source,
      List<String> keys,
      String deleteWhen,
      String sequenceBy,
      List<String> columns,
      List<String> except,
      Integer scdType,
      boolean ignoreNullUpdates,
      List<String> trackOn,
      List<String> trackExcept) {
    public Cdc {
      keys = List.copyOf(keys);
      columns = List.copyOf(columns);
      except = List.copyOf(except);
      scdType = scdType == null ? 1 : scdType; // flows stored before SCD TYPE 2 are type 1
      // Flows stored before TRACK HISTORY ON track every column.
      trackOn = trackOn == null ? List.of() : List.copyOf(trackOn);
      trackExcept = trackExcept == null ? List.of() : List.copyOf(trackExcept);
    }

    public Cdc(
        ObjectName source,
        List<String> keys,
        String deleteWhen,
        String sequenceBy,
        List<String> columns,
        List<String> except,
        Integer scdType,
        boolean ignoreNullUpdates) {
      this(
          source,
          keys,
          deleteWhen,
          sequenceBy,
          columns,
          except,
          scdType,
          ignoreNullUpdates,
          List.of(),
          List.of());
    }

    /**
     * TRACK HISTORY ON (SCD TYPE 2): a change opens a new version only when one of these columns
     * changes; a change of any other column updates its version in place.
     */
    public boolean tracksSome() {
      return !trackOn.isEmpty() || !trackExcept.isEmpty();
    }

    /** Whether a change of {@code column} opens a version (every column without TRACK HISTORY). */
    public boolean tracks(String column) {
      if (!trackOn.isEmpty()) {
        return trackOn.contains(column);
      }
      return !trackExcept.contains(column);
    }

    public Cdc(
        ObjectName source,
        List<String> keys,
        String deleteWhen,
        String sequenceBy,
        List<String> columns,
        List<String> except,
        Integer scdType) {
      this(source, keys, deleteWhen, sequenceBy, columns, except, scdType, false);
    }

    public Cdc(
        ObjectName source,
        List<String> keys,
        String deleteWhen,
        String sequenceBy,
        List<String> columns,
        List<String> except) {
      this(source, keys, deleteWhen, sequenceBy, columns, except, 1);
    }

    /** SCD TYPE 2: history rows, keyed by the keys and {@code __START_AT}. */
    public boolean history() {
      return scdType == 2;
    }
  }

  /** DROP FLOW [IF EXISTS] name. */
  record DropFlow(ObjectName name, boolean ifExists) implements Statement {
    public <R> R accept(Visitor<R> v) {
      return v.dropFlow(this);
    }

    public String kind() {
      return "DROP_FLOW";
    }
  }

  /**
   * ALTER FLOW name SUSPEND | RESUME: one flow of a pipeline table stops with a savepoint, or
   * resumes from it; the table's other flows run on.
   */
  record AlterFlow(ObjectName name, boolean suspend) implements Statement {
    public <R> R accept(Visitor<R> v) {
      return v.alterFlow(this);
    }

    public String kind() {
      return suspend ? "ALTER_FLOW_SUSPEND" : "ALTER_FLOW_RESUME";
    }
  }

  /**
   * ALTER [STREAMING] TABLE name SET TBLPROPERTIES ('compute-pool' = 'p'): a pipeline table's flows
   * move to another compute pool, each stopped with a savepoint and started from it there.
   */
  record AlterPipelineTable(ObjectName name, String computePool) implements Statement {
    public <R> R accept(Visitor<R> v) {
      return v.alterPipelineTable(this);
    }

    public String kind() {
      return "ALTER_PIPELINE_TABLE";
    }
  }

  /** REFRESH [STREAMING] TABLE name FULL: empty a pipeline table and run all its flows again. */
  record RefreshTable(ObjectName name) implements Statement {
    public <R> R accept(Visitor<R> v) {
      return v.refreshTable(this);
    }

    public String kind() {
      return "REFRESH_TABLE";
    }
  }

  /** SHOW FLOWS [IN | FROM table]: a table's flows, or all flows of the current database. */
  record ShowFlows(ObjectName table) implements Statement {
    public <R> R accept(Visitor<R> v) {
      return v.showFlows(this);
    }

    public String kind() {
      return "SHOW_FLOWS";
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
      options = Collections.unmodifiableMap(new TreeMap<>(options));
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
