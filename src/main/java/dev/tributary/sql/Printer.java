package dev.tributary.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Canonical SQL for every statement: names backtick-quoted, clauses in one fixed order, options
 * sorted, queries and expressions verbatim. {@code Parser.parse(Printer.print(s))} equals {@code
 * s}.
 */
public final class Printer implements Statement.Visitor<String> {

  private static final Printer INSTANCE = new Printer();

  private Printer() {}

  public static String print(Statement statement) {
    return statement.accept(INSTANCE);
  }

  public static String identifier(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  public static String string(String value) {
    return "'" + value.replace("'", "''") + "'";
  }

  @Override
  public String createMaterializedTable(Statement.CreateMaterializedTable s) {
    return "CREATE "
        + (s.orAlter() ? "OR ALTER " : "")
        + "MATERIALIZED TABLE "
        + (s.ifNotExists() ? "IF NOT EXISTS " : "")
        + s.name().sql()
        + definition(s.definition());
  }

  @Override
  public String alterMaterializedTable(Statement.AlterMaterializedTable s) {
    return "ALTER MATERIALIZED TABLE " + s.name().sql() + " " + s.action().sql();
  }

  @Override
  public String dropMaterializedTable(Statement.DropMaterializedTable s) {
    return "DROP MATERIALIZED TABLE " + (s.ifExists() ? "IF EXISTS " : "") + s.name().sql();
  }

  @Override
  public String showMaterializedTables(Statement.ShowMaterializedTables s) {
    return "SHOW MATERIALIZED TABLES"
        + (s.database() == null ? "" : " FROM " + s.database().sql())
        + (s.like() == null ? "" : " LIKE " + string(s.like()));
  }

  @Override
  public String showCreateMaterializedTable(Statement.ShowCreateMaterializedTable s) {
    return "SHOW CREATE MATERIALIZED TABLE " + s.name().sql();
  }

  @Override
  public String showMaterializedTable(Statement.ShowMaterializedTable s) {
    return "SHOW MATERIALIZED TABLE " + s.name().sql();
  }

  @Override
  public String describe(Statement.Describe s) {
    return "DESCRIBE " + s.name().sql();
  }

  @Override
  public String select(Statement.Select s) {
    StringBuilder sql = new StringBuilder("SELECT ");
    sql.append(
        s.columns().equals(List.of("*"))
            ? "*"
            : s.columns().stream().map(Printer::identifier).collect(Collectors.joining(", ")));
    sql.append(" FROM ").append(s.from().sql());
    if (!s.where().isEmpty()) {
      sql.append(" WHERE ")
          .append(s.where().stream().map(Printer::predicate).collect(Collectors.joining(" AND ")));
    }
    if (s.limit() != null) {
      sql.append(" LIMIT ").append(s.limit());
    }
    return sql.toString();
  }

  private static String predicate(Statement.Predicate p) {
    String column = identifier(p.column());
    return switch (p.operator()) {
      case "IS NULL", "IS NOT NULL" -> column + " " + p.operator();
      case "IN" ->
          column
              + " IN ("
              + p.values().stream().map(Printer::string).collect(Collectors.joining(", "))
              + ")";
      default -> column + " " + p.operator() + " " + string(p.values().get(0));
    };
  }

  @Override
  public String createPipelineTable(Statement.CreatePipelineTable s) {
    StringBuilder sql = new StringBuilder("CREATE TABLE ").append(s.name().sql());
    if (s.schema() != null) {
      sql.append(' ').append(schema(s.schema()));
    }
    if (!s.partitionedBy().isEmpty()) {
      sql.append("\nPARTITIONED BY ").append(names(s.partitionedBy()));
    }
    if (!s.clusterBy().isEmpty()) {
      sql.append("\nCLUSTER BY ").append(names(s.clusterBy()));
    }
    if (s.location() != null) {
      sql.append("\nLOCATION ").append(string(s.location()));
    }
    if (s.comment() != null) {
      sql.append("\nCOMMENT ").append(string(s.comment()));
    }
    if (!s.tableProperties().isEmpty()) {
      sql.append("\nTBLPROPERTIES ").append(options(s.tableProperties(), true));
    }
    if (s.rowFilter() != null) {
      sql.append("\nWITH ROW FILTER ")
          .append(s.rowFilter().function().sql())
          .append(" ON ")
          .append(names(s.rowFilter().columns()));
    }
    Statement.Flow flow = s.flow();
    if (flow == null) {
      return "CREATE STREAMING TABLE" + sql.substring("CREATE TABLE".length());
    }
    sql.append("\nFLOW ");
    if (flow.importCheckpoint() != null) {
      sql.append("IMPORT CHECKPOINT ").append(string(flow.importCheckpoint())).append(' ');
    }
    return sql.append("INSERT ")
        .append(flow.once() ? "ONCE " : "")
        .append(flow.byName() ? "BY NAME" : "")
        .append('\n')
        .append(flow.query())
        .toString();
  }

  @Override
  public String createFlow(Statement.CreateFlow s) {
    if (s.cdc() != null) {
      Statement.Cdc cdc = s.cdc();
      return "CREATE FLOW "
          + s.name().sql()
          + (s.comment() == null ? "" : " COMMENT " + string(s.comment()))
          + " AS AUTO CDC "
          + (s.once() ? "ONCE " : "")
          + "INTO "
          + s.target().sql()
          + "\nFROM STREAM "
          + cdc.source().sql()
          + "\nKEYS "
          + names(cdc.keys())
          + (cdc.ignoreNullUpdates() ? "\nIGNORE NULL UPDATES" : "")
          + (cdc.deleteWhen() == null ? "" : "\nAPPLY AS DELETE WHEN " + cdc.deleteWhen())
          + "\nSEQUENCE BY "
          + identifier(cdc.sequenceBy())
          + (cdc.columns().isEmpty() ? "" : "\nCOLUMNS " + names(cdc.columns()))
          + (cdc.except().isEmpty() ? "" : "\nCOLUMNS * EXCEPT " + names(cdc.except()))
          + "\nSTORED AS SCD TYPE "
          + cdc.scdType()
          + (cdc.trackOn().isEmpty() ? "" : "\nTRACK HISTORY ON " + names(cdc.trackOn()))
          + (cdc.trackExcept().isEmpty()
              ? ""
              : "\nTRACK HISTORY ON * EXCEPT " + names(cdc.trackExcept()));
    }
    return "CREATE FLOW "
        + s.name().sql()
        + (s.comment() == null ? "" : " COMMENT " + string(s.comment()))
        + " AS INSERT INTO "
        + (s.once() ? "ONCE " : "")
        + s.target().sql()
        + (s.byName() ? " BY NAME" : "")
        + "\n"
        + s.query();
  }

  @Override
  public String alterPipelineTable(Statement.AlterPipelineTable s) {
    return "ALTER TABLE "
        + s.name().sql()
        + " SET TBLPROPERTIES "
        + options(Map.of(TableOptions.COMPUTE_POOL, s.computePool()), false);
  }

  @Override
  public String alterFlow(Statement.AlterFlow s) {
    return "ALTER FLOW " + s.name().sql() + (s.suspend() ? " SUSPEND" : " RESUME");
  }

  @Override
  public String dropFlow(Statement.DropFlow s) {
    return "DROP FLOW " + (s.ifExists() ? "IF EXISTS " : "") + s.name().sql();
  }

  @Override
  public String refreshTable(Statement.RefreshTable s) {
    return "REFRESH STREAMING TABLE " + s.name().sql() + " FULL";
  }

  @Override
  public String showFlows(Statement.ShowFlows s) {
    return "SHOW FLOWS" + (s.table() == null ? "" : " IN " + s.table().sql());
  }

  @Override
  public String createSourceTable(Statement.CreateSourceTable s) {
    return "CREATE TABLE "
        + (s.ifNotExists() ? "IF NOT EXISTS " : "")
        + s.name().sql()
        + " "
        + schema(s.schema())
        + (s.comment() == null ? "" : "\nCOMMENT " + string(s.comment()))
        + "\nWITH "
        + options(s.options(), true);
  }

  @Override
  public String dropTable(Statement.DropTable s) {
    return "DROP TABLE " + (s.ifExists() ? "IF EXISTS " : "") + s.name().sql();
  }

  @Override
  public String showTables(Statement.ShowTables s) {
    return "SHOW TABLES" + (s.database() == null ? "" : " FROM " + s.database().sql());
  }

  @Override
  public String use(Statement.Use s) {
    if (s.database() == null) {
      return "USE CATALOG " + identifier(s.catalog());
    }
    return "USE "
        + (s.catalog() == null ? "" : identifier(s.catalog()) + ".")
        + identifier(s.database());
  }

  @Override
  public String explain(Statement.Explain s) {
    return "EXPLAIN " + print(s.statement());
  }

  /** Everything after the table name: schema, clauses and AS query. */
  static String definition(MaterializedTableDefinition d) {
    StringBuilder sql = new StringBuilder();
    if (d.schema() != null) {
      sql.append(' ').append(schema(d.schema()));
    }
    if (d.comment() != null) {
      sql.append("\nCOMMENT ").append(string(d.comment()));
    }
    if (!d.partitionedBy().isEmpty()) {
      sql.append("\nPARTITIONED BY ").append(names(d.partitionedBy()));
    }
    if (d.distribution() != null) {
      sql.append("\n").append(distribution(d.distribution()));
    }
    if (!d.options().isEmpty()) {
      sql.append("\nWITH ").append(options(d.options(), true));
    }
    if (d.freshness() != null) {
      sql.append("\nFRESHNESS = ").append(d.freshness().sql());
    }
    if (d.refreshMode() != null) {
      sql.append("\nREFRESH_MODE = ").append(d.refreshMode().name());
    }
    if (d.startMode() != null) {
      sql.append("\nSTART_MODE = ").append(startMode(d.startMode()));
    }
    return sql.append("\nAS\n").append(d.query()).toString();
  }

  static String schema(TableSchema schema) {
    List<String> elements = new ArrayList<>();
    schema.columns().forEach(c -> elements.add(column(c)));
    if (schema.watermark() != null) {
      elements.add(watermark(schema.watermark()));
    }
    if (schema.primaryKey() != null) {
      elements.add(primaryKey(schema.primaryKey()));
    }
    for (TableSchema.Expectation e : schema.expectations()) {
      elements.add(
          "CONSTRAINT "
              + identifier(e.name())
              + " EXPECT ("
              + e.expression()
              + ")"
              + (e.onViolation() == null
                  ? ""
                  : " ON VIOLATION " + e.onViolation().name().replace('_', ' ')));
    }
    return "(\n  " + String.join(",\n  ", elements) + "\n)";
  }

  static String column(Column c) {
    String comment = c.comment() == null ? "" : " COMMENT " + string(c.comment());
    return switch (c.kind()) {
      case COMPUTED -> identifier(c.name()) + " AS " + c.expression() + comment;
      case METADATA ->
          identifier(c.name())
              + " "
              + c.type()
              + " METADATA"
              + (c.metadataKey() == null ? "" : " FROM " + string(c.metadataKey()))
              + (c.virtual() ? " VIRTUAL" : "")
              + comment;
      case PHYSICAL ->
          c.type() == null
              ? identifier(c.name())
              : identifier(c.name()) + " " + c.type() + (c.notNull() ? " NOT NULL" : "") + comment;
    };
  }

  static String distribution(Clauses.Distribution d) {
    return distribution(d, "DISTRIBUTED");
  }

  /** {@code DISTRIBUTED ...} in a definition, {@code DISTRIBUTION ...} in an ALTER. */
  static String distribution(Clauses.Distribution d, String word) {
    String buckets = d.buckets() == null ? "" : " INTO " + d.buckets() + " BUCKETS";
    if (d.columns().isEmpty()) {
      return word + buckets;
    }
    return word
        + " BY "
        + (d.algorithm() == null ? "" : d.algorithm().name())
        + names(d.columns())
        + buckets;
  }

  /** WATERMARK FOR column AS expression. */
  static String watermark(TableSchema.Watermark w) {
    return "WATERMARK FOR " + identifier(w.column()) + " AS " + w.expression();
  }

  /** [CONSTRAINT name] PRIMARY KEY (columns) NOT ENFORCED. */
  static String primaryKey(TableSchema.PrimaryKey pk) {
    return (pk.constraintName() == null
            ? ""
            : "CONSTRAINT " + identifier(pk.constraintName()) + " ")
        + "PRIMARY KEY "
        + names(pk.columns())
        + " NOT ENFORCED";
  }

  static String startMode(Clauses.StartMode m) {
    if (m.offset() != null) {
      return m.kind().name() + "(" + m.offset().sql() + ")";
    }
    if (m.timestamp() != null) {
      return m.kind().name() + "(" + m.timestamp() + ")";
    }
    return m.kind().name();
  }

  private static String names(List<String> names) {
    return "(" + names.stream().map(Printer::identifier).collect(Collectors.joining(", ")) + ")";
  }

  static String options(Map<String, String> options, boolean multiline) {
    String separator = multiline ? ",\n  " : ", ";
    String body =
        options.entrySet().stream()
            .map(e -> string(e.getKey()) + " = " + string(e.getValue()))
            .collect(Collectors.joining(separator));
    return multiline ? "(\n  " + body + "\n)" : "(" + body + ")";
  }
}
