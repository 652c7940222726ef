package dev.tributary.statement;

import dev.tributary.catalog.CatalogService;
import dev.tributary.catalog.SourceTable;
import dev.tributary.security.Access;
import dev.tributary.sql.Column;
import dev.tributary.sql.Defaults;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Statement;
import dev.tributary.sql.TableOptions;
import dev.tributary.sql.TableSchema;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.table.Freshness;
import dev.tributary.table.MaterializedTable;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.TableSpec;
import dev.tributary.table.TableStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.stereotype.Component;

/** The read-only statements: DESCRIBE, lineage, SHOW TABLES and information_schema. */
@Component
class TableQueries {

  static final List<String> DESCRIBE_COLUMNS =
      List.of("name", "type", "null", "key", "extras", "watermark");
  static final List<String> INFORMATION_SCHEMA_COLUMNS =
      List.of(
          "table_catalog",
          "table_schema",
          "table_name",
          "table_type",
          "refresh_mode",
          "freshness",
          "status",
          "generation",
          "observed_generation",
          "last_refresh",
          "next_refresh",
          "job_id",
          "job_running_time",
          "compute_pool");

  /** SHOW MATERIALIZED TABLES: the name first (as Flink's), then how fresh each table is. */
  static final List<String> SHOW_COLUMNS =
      List.of(
          "table_name",
          "refresh_mode",
          "freshness",
          "status",
          "last_refresh",
          "next_refresh",
          "compute_pool");

  /** SHOW FLOWS. */
  static final List<String> FLOW_COLUMNS =
      List.of("flow_name", "table_name", "flow_type", "status", "job_id", "comment");

  List<Object> flowRow(MaterializedTable flow) {
    Statement.CreateFlow statement = tables.spec(flow).flowStatement();
    TableStatus status = flow.status();
    List<Object> row = new ArrayList<>();
    row.add(flow.getName());
    row.add(statement.target().name());
    row.add(statement.once() ? "INSERT_ONCE" : "APPEND");
    row.add(flow.isDeletionRequested() ? "DELETING" : flow.getPhase().name());
    row.add(status.jobId());
    row.add(statement.comment());
    return row;
  }

  /** A result set. */
  record Rows(List<String> columns, List<List<Object>> rows) {}

  private final MaterializedTableService tables;
  private final CatalogService catalogs;
  private final TableRows rows;
  private final Freshness freshness;

  TableQueries(
      MaterializedTableService tables,
      CatalogService catalogs,
      TableRows rows,
      Freshness freshness) {
    this.tables = tables;
    this.catalogs = catalogs;
    this.rows = rows;
    this.freshness = freshness;
  }

  /** What a SELECT over a materialized table reads; see {@link TableRows}. */
  TableRows.Request tableRows(MaterializedTable table, Statement.Select select) {
    return rows.request(table, select);
  }

  /** The rows a SELECT asked for, read from Kafka (and Flink for computed columns). */
  Rows answer(TableRows.Request request) {
    return rows.answer(request, TableQueries::matches);
  }

  List<List<Object>> describe(ObjectName name) {
    TableSchema schema;
    var table = tables.find(name);
    if (table.isPresent()) {
      TableSpec spec = tables.spec(table.get());
      schema =
          spec.kind() == TableSpec.Kind.MATERIALIZED_TABLE
              ? withInferredColumns(
                  Defaults.withDerivedKey(spec.definition()).schema(), table.get())
              : spec.definition() != null ? spec.definition().schema() : spec.pipeline().schema();
      if (!TableSchema.hasDeclaredTypes(schema)) {
        throw new ApiException(
            ErrorCode.CONFLICT,
            "The columns of "
                + name
                + " are inferred from its query when the table is provisioned; none are known yet");
      }
    } else {
      SourceTable source =
          catalogs
              .findSourceTable(name)
              .orElseThrow(
                  () -> new ApiException(ErrorCode.NOT_FOUND, "Table " + name + " does not exist"));
      schema = source.definition().schema();
    }
    List<List<Object>> rows = new ArrayList<>();
    for (Column c : schema.columns()) {
      boolean key = schema.primaryKey() != null && schema.primaryKey().columns().contains(c.name());
      String extras =
          switch (c.kind()) {
            case COMPUTED -> "AS " + c.expression();
            case METADATA ->
                "METADATA"
                    + (c.metadataKey() == null ? "" : " FROM '" + c.metadataKey() + "'")
                    + (c.virtual() ? " VIRTUAL" : "");
            case PHYSICAL -> null;
          };
      String watermark =
          schema.watermark() != null && schema.watermark().column().equals(c.name())
              ? schema.watermark().expression()
              : null;
      rows.add(
          Arrays.asList(
              c.name(),
              c.type(),
              !c.notNull() && !key,
              key ? "PRI(" + c.name() + ")" : null,
              extras,
              watermark));
    }
    return rows;
  }

  /**
   * The table as others read it: the physical columns Flink reported for its query (in the order
   * the table gives them), then its declared computed and metadata columns, key and watermark.
   */
  private static TableSchema withInferredColumns(TableSchema declared, MaterializedTable table) {
    TableStatus status = table.status();
    if (status.schema().isEmpty()) {
      return declared;
    }
    List<Column> columns = new ArrayList<>();
    status
        .schema()
        .forEach(c -> columns.add(Column.physical(c.name(), c.type(), !c.nullable(), null)));
    if (declared == null) {
      return new TableSchema(columns, null, null, List.of());
    }
    declared.columns().stream().filter(c -> c.kind() != Column.Kind.PHYSICAL).forEach(columns::add);
    return new TableSchema(
        columns, declared.watermark(), declared.primaryKey(), declared.expectations());
  }

  /** What the table reads (resolved against the catalog) and which materialized tables read it. */
  List<List<Object>> tables(String catalog, String database) {
    List<List<Object>> rows = new ArrayList<>();
    catalogs
        .findDatabase(catalog, database)
        .ifPresent(
            db ->
                catalogs
                    .sourceTables(catalog, database)
                    .forEach(t -> rows.add(List.of(t.getName(), "SOURCE_TABLE"))));
    tables
        .list(catalog, database)
        .forEach(t -> rows.add(List.of(t.getName(), tables.spec(t).kind().name())));
    rows.sort((a, b) -> a.get(0).toString().compareTo(b.get(0).toString()));
    return rows;
  }

  Rows informationSchema(String catalog, Statement.Select select) {
    List<String> columns =
        select.columns().equals(List.of("*")) ? INFORMATION_SCHEMA_COLUMNS : select.columns();
    for (String c : columns) {
      if (!INFORMATION_SCHEMA_COLUMNS.contains(c)) {
        throw new ApiException(
            ErrorCode.VALIDATION_FAILED,
            "information_schema.materialized_tables has no column '"
                + c
                + "'; it has "
                + String.join(", ", INFORMATION_SCHEMA_COLUMNS));
      }
    }
    for (Statement.Predicate p : select.where()) {
      if (!INFORMATION_SCHEMA_COLUMNS.contains(p.column())) {
        throw new ApiException(
            ErrorCode.VALIDATION_FAILED,
            "information_schema.materialized_tables has no column '" + p.column() + "'");
      }
    }
    List<List<Object>> rows = new ArrayList<>();
    // The rows (tables and flows, one query) of the catalog's databases the caller may see; a flow
    // is a row of type FLOW, named as the flow.
    for (MaterializedTable t : tables.inCatalog(catalog, Access::sees)) {
      Map<String, Object> row = informationSchemaRow(t);
      if (select.where().stream().allMatch(p -> matches(row.get(p.column()), p))) {
        rows.add(columns.stream().map(row::get).toList());
      }
    }
    rows.sort((a, b) -> String.valueOf(a).compareTo(String.valueOf(b)));
    int limit = select.limit() == null ? rows.size() : Math.min(select.limit(), rows.size());
    return new Rows(columns, rows.subList(0, limit));
  }

  /** A row of SHOW MATERIALIZED TABLES. */
  List<Object> showRow(MaterializedTable t) {
    Map<String, Object> row = informationSchemaRow(t);
    List<Object> values = new ArrayList<>();
    values.add(t.getName());
    for (String column : SHOW_COLUMNS.subList(1, SHOW_COLUMNS.size())) {
      values.add(row.get(column));
    }
    return values;
  }

  private Map<String, Object> informationSchemaRow(MaterializedTable t) {
    TableSpec spec = tables.spec(t);
    TableStatus status = t.status();
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("table_catalog", t.getDatabase().getCatalog().getName());
    row.put("table_schema", t.getDatabase().getName());
    row.put("table_name", t.getName());
    row.put("table_type", spec.kind().name());
    if (spec.definition() != null) {
      MaterializedTableDefinition effective = Defaults.effective(spec.definition());
      row.put("refresh_mode", effective.refreshMode().name());
      row.put("freshness", effective.freshness().sql());
    } else {
      row.put("refresh_mode", "CONTINUOUS");
      row.put("freshness", null);
    }
    row.put(
        "status",
        spec.stopped() && t.getPhase().name().equals("RUNNING") ? "STOPPING" : t.getPhase().name());
    row.put("generation", t.getGeneration());
    row.put("observed_generation", t.getObservedGeneration());
    Freshness.Summary fresh = freshness.of(t, spec);
    boolean full = fresh != null && fresh.refreshMode().equals("FULL");
    row.put(
        "last_refresh",
        full && fresh.lastRefresh() != null ? fresh.lastRefresh().toString() : null);
    row.put(
        "next_refresh",
        full && fresh.nextRefresh() != null ? fresh.nextRefresh().toString() : null);
    row.put("job_id", status.jobId());
    Instant started = status.jobStartTime();
    row.put(
        "job_running_time",
        started == null || !"RUNNING".equals(t.getPhase().name())
            ? null
            : Duration.between(started, Instant.now()).withNanos(0).toString());
    // Where it is placed; status.job.computePool says where its job was submitted.
    row.put(
        "compute_pool",
        spec.definition() == null
            ? TableOptions.DEFAULT_POOL
            : TableOptions.pool(spec.definition().options()));
    return row;
  }

  static boolean matches(Object value, Statement.Predicate p) {
    String v = value == null ? null : value.toString();
    return switch (p.operator()) {
      case "IS NULL" -> v == null;
      case "IS NOT NULL" -> v != null;
      case "IN" -> v != null && p.values().contains(v);
      case "LIKE" -> v != null && like(v, p.values().get(0));
      case "NOT LIKE" -> v != null && !like(v, p.values().get(0));
      default -> v != null && compare(v, p.values().get(0), p.operator());
    };
  }

  private static boolean compare(String left, String right, String operator) {
    int c;
    try {
      c = new java.math.BigDecimal(left).compareTo(new java.math.BigDecimal(right));
    } catch (NumberFormatException e) {
      c = left.compareTo(right);
    }
    return switch (operator) {
      case "=" -> c == 0;
      case "<>" -> c != 0;
      case "<" -> c < 0;
      case "<=" -> c <= 0;
      case ">" -> c > 0;
      default -> c >= 0;
    };
  }

  /**
   * SQL LIKE: % any run, _ any one character; everything else literal. Matched greedily with one
   * backtrack point (the last %), so a pattern of many %s costs at most length(value) x
   * length(pattern) steps; a regular expression of {@code .*} pieces could backtrack exponentially.
   */
  static boolean like(String value, String pattern) {
    int v = 0;
    int p = 0;
    int star = -1;
    int resume = 0;
    while (v < value.length()) {
      if (p < pattern.length()
          && pattern.charAt(p) != '%'
          && (pattern.charAt(p) == '_' || pattern.charAt(p) == value.charAt(v))) {
        v++;
        p++;
      } else if (p < pattern.length() && pattern.charAt(p) == '%') {
        star = p++;
        resume = v;
      } else if (star >= 0) {
        p = star + 1;
        v = ++resume;
      } else {
        return false;
      }
    }
    while (p < pattern.length() && pattern.charAt(p) == '%') {
      p++;
    }
    return p == pattern.length();
  }
}
