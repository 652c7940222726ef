package dev.tributary.plan;

import dev.tributary.port.FlinkSql;
import dev.tributary.sql.Clauses;
import dev.tributary.sql.Column;
import dev.tributary.sql.DeadLetterTable;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Printer;
import dev.tributary.sql.Statement;
import dev.tributary.sql.TableOptions;
import dev.tributary.sql.TableSchema;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.springframework.stereotype.Component;

/**
 * Plans a flow of a pipeline table: the table's columns (declared, else those of its first flow's
 * query), the flow's query matched onto them (by name or by position) and checked with Flink, and
 * the job that appends the flow's rows to the table's topic, planned as a materialized table that
 * writes into a topic it does not own. Pure apart from the Flink checks: equal requests, equal
 * plans.
 */
@Component
public class FlowPlanner {

  /** TBLPROPERTIES a pipeline table carries out; Databricks' trigger interval sets freshness. */
  static final String TRIGGER_INTERVAL = "pipelines.trigger.interval";

  static final Set<String> TABLE_PROPERTIES =
      Set.of(
          TRIGGER_INTERVAL,
          "value.format",
          "key.format",
          "kafka.retention.time",
          "kafka.retention.size",
          "kafka.max-message-size",
          "error-handling.mode",
          DeadLetterTable.TARGET,
          TableOptions.COMPUTE_POOL);

  private final QueryPlanner queries;
  private final ChangePlanner changes;

  public FlowPlanner(QueryPlanner queries, ChangePlanner changes) {
    this.queries = queries;
    this.changes = changes;
  }

  /**
   * Everything a flow's plan reads: the table (its statement, and its stored definition unless it
   * is created by the same script), the flow and a snapshot of the catalog.
   */
  public record Request(
      ObjectName table,
      String topic,
      Statement.CreatePipelineTable pipeline,
      MaterializedTableDefinition stored,
      Statement.CreateFlow first,
      Statement.CreateFlow flow,
      QueryPlanner.Snapshot catalog) {}

  /** What is stored: the table's definition (for a new table) and the flow's job. */
  public record Planned(
      MaterializedTableDefinition table, MaterializedTableDefinition job, ChangePlan plan) {}

  /**
   * {@code first} is the first flow of a declared streaming table created by the same script (null
   * otherwise): the table's columns are that flow's.
   */
  public Request request(
      ObjectName table,
      String topic,
      Statement.CreatePipelineTable pipeline,
      MaterializedTableDefinition stored,
      Statement.CreateFlow first,
      Statement.CreateFlow flow) {
    List<String> reads = new ArrayList<>();
    reads.add(flow.query());
    if (stored == null && pipeline.flow() != null) {
      reads.add(pipeline.flow().query());
    }
    if (first != null) {
      reads.add(first.query());
    }
    return new Request(table, topic, pipeline, stored, first, flow, queries.snapshot(table, reads));
  }

  public Planned plan(Request request) {
    QueryPlanner q = queries.over(request.catalog());
    Statement.CreatePipelineTable pipeline = request.pipeline();
    if (request.stored() == null) {
      refuseUnsupported(pipeline);
    }
    ObjectName flowName =
        new ObjectName(
            request.table().catalog(), request.table().database(), request.flow().name().name());
    if (request.flow().once()
        && DeadLetterTable.logs(
            request.stored() != null ? request.stored().options() : pipeline.tableProperties())) {
      throw new ApiException(
          ErrorCode.UNSUPPORTED_OPTION,
          "Flow "
              + flowName.name()
              + " runs ONCE into a table with 'error-handling.mode' = 'log': a bounded run does"
              + " not write a dead-letter table yet; use a continuous flow, or 'fail' or 'ignore'",
          Map.of("property", "error-handling.mode"));
    }
    if (request.flow().cdc() != null) {
      return planCdc(request, q, flowName);
    }
    MaterializedTableDefinition base = base(pipeline, request.stored());
    // A table's columns: stored, declared, or those of its first flow's query.
    String first =
        pipeline.flow() != null
            ? pipeline.flow().query()
            : request.first() != null ? request.first().query() : request.flow().query();
    List<FlinkSql.Column> tableColumns =
        request.stored() != null
            ? columns(request.stored().schema())
            : declaredColumns(pipeline.schema())
                .orElseGet(() -> shape(q, request.table(), base, first).columns());
    if (request.flow().once()) {
      requireBounded(q, flowName, request.flow().query());
    }
    QueryPlanner.QueryShape flowShape = shape(q, flowName, base, request.flow().query());
    if (!flowShape.changelogMode().insertOnly()) {
      throw new ApiException(
          ErrorCode.INVALID_QUERY,
          "Flow "
              + flowName.name()
              + " appends rows to "
              + request.table()
              + ", but its query produces updates ("
              + flowShape.changelogMode()
              + "); a flow's query must be insert-only (no aggregation without windows, no"
              + " joins of updating tables)");
    }
    String mapped = mapped(request.flow(), request.table(), flowShape.columns(), tableColumns);
    List<TableSchema.Expectation> expectations =
        request.stored() != null
            ? request.stored().schema().expectations()
            : pipeline.schema() == null ? List.of() : pipeline.schema().expectations();
    TableSchema schema =
        new TableSchema(
            tableColumns.stream()
                .map(c -> Column.physical(c.name(), c.type(), !c.nullable(), null))
                .toList(),
            null,
            null,
            expectations);
    MaterializedTableDefinition job =
        new MaterializedTableDefinition(
            schema,
            request.flow().comment(),
            List.of(),
            base.distribution(),
            base.options(),
            base.freshness(),
            Clauses.RefreshMode.CONTINUOUS,
            // A flow reads its sources from the beginning; a new shape of the flow goes on from
            // where the previous one stopped.
            new Clauses.StartMode(Clauses.StartMode.Kind.RESUME_OR_FROM_BEGINNING, null, null),
            mapped);
    ChangePlan plan =
        changes.plan(
            new ChangePlanner.Request(
                flowName, request.topic(), null, job, request.catalog(), true));
    MaterializedTableDefinition table =
        request.stored() != null
            ? request.stored()
            : new MaterializedTableDefinition(
                schema,
                pipeline.comment(),
                List.of(),
                base.distribution(),
                base.options(),
                base.freshness(),
                Clauses.RefreshMode.CONTINUOUS,
                job.startMode(),
                mapped);
    return new Planned(table, job, plan);
  }

  /**
   * INSERT ONCE reads each Kafka source up to the end offsets it finds when it starts; another
   * source must end by itself (datagen with 'number-of-rows'), or the run would never be done.
   */
  private static void requireBounded(QueryPlanner q, ObjectName flow, String query) {
    for (Statement.CreateSourceTable source : q.sourceDeclarations(flow, query)) {
      Map<String, String> options = source.options();
      boolean bounded =
          "kafka".equals(options.get("connector"))
              || options.containsKey("number-of-rows")
              || options.containsKey("scan.bounded.mode");
      if (!bounded) {
        throw new ApiException(
            ErrorCode.INVALID_DEFINITION,
            "A ONCE flow runs once to its end, but source "
                + source.name()
                + " ('connector' = '"
                + options.get("connector")
                + "') never ends: a Kafka source is read up to its end offsets at the start of"
                + " the run; give this one an end (e.g. datagen's 'number-of-rows')");
      }
    }
  }

  /** Clauses of Databricks' CREATE TABLE that have no meaning for a table in a Kafka topic. */
  private static void refuseUnsupported(Statement.CreatePipelineTable s) {
    if (!s.clusterBy().isEmpty()) {
      throw unsupported(
          "CLUSTER BY is not supported: a pipeline table is a Kafka topic, which has no"
              + " clustering; PARTITIONED BY (columns) keys its records by those columns");
    }
    if (s.location() != null) {
      throw unsupported(
          "LOCATION is not supported: a pipeline table's rows are in its own Kafka topic, named"
              + " after the table");
    }
    if (s.rowFilter() != null) {
      throw unsupported(
          "WITH ROW FILTER is not supported: the topic holds every row, and readers of Kafka are"
              + " not filtered");
    }
    for (Map.Entry<String, String> p : s.tableProperties().entrySet()) {
      if (!TABLE_PROPERTIES.contains(p.getKey())) {
        throw new ApiException(
            ErrorCode.INVALID_DEFINITION,
            "TBLPROPERTIES '"
                + p.getKey()
                + "' has no effect on a pipeline table; it takes "
                + TABLE_PROPERTIES.stream().sorted().toList(),
            Map.of("property", p.getKey()));
      }
    }
    String target = s.tableProperties().get(DeadLetterTable.TARGET);
    if (target != null && !DeadLetterTable.logs(s.tableProperties())) {
      throw new ApiException(
          ErrorCode.INVALID_DEFINITION,
          "TBLPROPERTIES '"
              + DeadLetterTable.TARGET
              + "' names the dead-letter table of 'error-handling.mode' = 'log', which this table"
              + " does not set",
          Map.of("property", DeadLetterTable.TARGET));
    }
    if (target != null && DeadLetterTable.invalidTarget(target) != null) {
      throw new ApiException(
          ErrorCode.INVALID_OPTION_VALUE,
          DeadLetterTable.invalidTarget(target),
          Map.of("property", DeadLetterTable.TARGET));
    }
    String interval = s.tableProperties().get(TRIGGER_INTERVAL);
    if (interval != null && TableOptions.duration(interval).isEmpty()) {
      throw new ApiException(
          ErrorCode.INVALID_DEFINITION,
          "TBLPROPERTIES '"
              + TRIGGER_INTERVAL
              + "' = '"
              + interval
              + "' is not a duration; write e.g. '10 seconds' or '1 min'",
          Map.of("property", TRIGGER_INTERVAL));
    }
  }

  private static ApiException unsupported(String message) {
    return new ApiException(ErrorCode.UNSUPPORTED_CLAUSE, message);
  }

  /**
   * Options, freshness and key of the table's topic: an append-only topic; PARTITIONED BY keys its
   * records (rows with equal values land in one partition); the trigger interval is how often the
   * flows commit (their checkpoint interval, as a materialized table's FRESHNESS).
   */
  private static MaterializedTableDefinition base(
      Statement.CreatePipelineTable s, MaterializedTableDefinition stored) {
    if (stored != null) {
      return stored;
    }
    Map<String, String> options = new LinkedHashMap<>(s.tableProperties());
    String interval = options.remove(TRIGGER_INTERVAL);
    options.put("changelog.mode", "append");
    Clauses.Interval freshness =
        interval == null
            ? null
            : new Clauses.Interval(
                Math.max(1, TableOptions.duration(interval).orElseThrow().toSeconds()),
                Clauses.TimeUnit.SECOND);
    String query = s.flow() == null ? null : s.flow().query();
    Clauses.Distribution distribution =
        s.partitionedBy().isEmpty()
            ? null
            : new Clauses.Distribution(
                Clauses.Distribution.Algorithm.HASH, s.partitionedBy(), null);
    return new MaterializedTableDefinition(
        null,
        s.comment(),
        List.of(),
        distribution,
        options,
        freshness,
        Clauses.RefreshMode.CONTINUOUS,
        null,
        query);
  }

  /** The name of the rank column of an AUTO CDC flow's query (never written). */
  static final String CDC_RANK = "tributary_cdc_rank";

  /** Whether a change deletes its key, in the query of IGNORE NULL UPDATES. */
  static final String CDC_DELETED = "tributary_cdc_deleted";

  /**
   * AUTO CDC: the latest row of each key by the sequence column (ROW_NUMBER() = 1, so a row that
   * arrives late with an older sequence changes nothing), left out when the delete condition holds
   * for it (the key's previous row is retracted: a tombstone). The table is an upsert table keyed
   * by KEYS, in a compacted topic; it has this one flow.
   */
  private Planned planCdc(Request request, QueryPlanner q, ObjectName flowName) {
    Statement.Cdc cdc = request.flow().cdc();
    Statement.CreatePipelineTable pipeline = request.pipeline();
    if (request.stored() != null || pipeline.flow() != null || request.first() != null) {
      throw new ApiException(
          ErrorCode.CONFLICT,
          "AUTO CDC writes the latest row of each key into a table of its own: "
              + request.table()
              + " already has a flow (MANAGED_TABLE_DOES_NOT_SUPPORT_CDC). Declare the target with"
              + " CREATE STREAMING TABLE, and give it no other flow");
    }
    refuseUnsupported(pipeline);
    if (request.flow().once()) {
      requireBounded(q, flowName, request.flow().query());
    }
    MaterializedTableDefinition base = base(pipeline, null);
    QueryPlanner.QueryShape source = shape(q, flowName, base, request.flow().query());
    if (!source.changelogMode().insertOnly()) {
      throw new ApiException(
          ErrorCode.INVALID_QUERY,
          "AUTO CDC reads a stream of change rows (one row per change, with the key, the sequence"
              + " and the operation); "
              + cdc.source()
              + " is an updating table");
    }
    List<String> names = source.columns().stream().map(FlinkSql.Column::name).toList();
    List<String> problems = new ArrayList<>();
    for (String column : cdc.keys()) {
      if (!names.contains(column)) {
        problems.add("KEYS names '" + column + "', which " + cdc.source() + " does not have");
      }
    }
    if (!names.contains(cdc.sequenceBy())) {
      problems.add(
          "SEQUENCE BY names '" + cdc.sequenceBy() + "', which " + cdc.source() + " does not have");
    }
    for (String column : cdc.columns().isEmpty() ? cdc.except() : cdc.columns()) {
      if (!names.contains(column)) {
        problems.add("COLUMNS names '" + column + "', which " + cdc.source() + " does not have");
      }
    }
    List<FlinkSql.Column> out =
        cdc.columns().isEmpty()
            ? source.columns().stream().filter(c -> !cdc.except().contains(c.name())).toList()
            : cdc.columns().stream()
                .flatMap(n -> source.columns().stream().filter(c -> c.name().equals(n)))
                .toList();
    for (String key : cdc.keys()) {
      if (out.stream().noneMatch(c -> c.name().equals(key))) {
        problems.add("key column '" + key + "' must be one of the COLUMNS written");
      }
    }
    if (cdc.history()) {
      for (String column : List.of(START_AT, END_AT)) {
        if (out.stream().anyMatch(c -> c.name().equalsIgnoreCase(column))) {
          problems.add(
              "SCD TYPE 2 adds column "
                  + column
                  + ", which "
                  + cdc.source()
                  + " has too; leave it out with COLUMNS * EXCEPT ("
                  + column
                  + ")");
        }
      }
    }
    for (String column : cdc.trackOn().isEmpty() ? cdc.trackExcept() : cdc.trackOn()) {
      if (out.stream().noneMatch(c -> c.name().equals(column))) {
        problems.add("TRACK HISTORY ON names '" + column + "', which the flow does not write");
      }
    }
    if (!problems.isEmpty()) {
      throw new ApiException(
          ErrorCode.INVALID_DEFINITION,
          "AUTO CDC flow " + flowName.name() + ": " + String.join("; ", problems),
          Map.of("problems", problems));
    }
    if (cdc.history()) {
      FlinkSql.Column sequence =
          source.columns().stream()
              .filter(c -> c.name().equals(cdc.sequenceBy()))
              .findFirst()
              .orElseThrow();
      List<FlinkSql.Column> history = new ArrayList<>(out);
      history.add(new FlinkSql.Column(START_AT, sequence.type(), sequence.nullable()));
      history.add(new FlinkSql.Column(END_AT, sequence.type(), true));
      List<String> key = new ArrayList<>(cdc.keys());
      key.add(START_AT);
      Changes changes = cdc.ignoreNullUpdates() ? Changes.filled(cdc, out) : Changes.of(cdc);
      return cdcPlanned(
          request,
          flowName,
          base,
          history,
          key,
          cdc.tracksSome()
              ? trackedHistoryQuery(cdc, out, changes)
              : historyQuery(cdc, out, changes));
    }
    if (cdc.ignoreNullUpdates()) {
      return cdcPlanned(request, flowName, base, out, cdc.keys(), ignoringNulls(cdc, out));
    }
    String keys = cdc.keys().stream().map(Printer::identifier).collect(Collectors.joining(", "));
    String query =
        "SELECT "
            + out.stream().map(c -> Printer.identifier(c.name())).collect(Collectors.joining(", "))
            + " FROM (\nSELECT * FROM (\nSELECT *, ROW_NUMBER() OVER (PARTITION BY "
            + keys
            + " ORDER BY "
            + Printer.identifier(cdc.sequenceBy())
            + " DESC) AS "
            + CDC_RANK
            + "\nFROM "
            + cdc.source().sql()
            + " WHERE "
            + cdc.keys().stream()
                .map(k -> Printer.identifier(k) + " IS NOT NULL")
                .collect(Collectors.joining(" AND "))
            + "\n) WHERE "
            + CDC_RANK
            + " = 1\n)"
            + (cdc.deleteWhen() == null
                ? ""
                : " WHERE NOT COALESCE((" + cdc.deleteWhen() + "), FALSE)");
    return cdcPlanned(request, flowName, base, out, cdc.keys(), query);
  }

  /**
   * SCD TYPE 1 with IGNORE NULL UPDATES: a key's row is there while its latest change (by the
   * sequence column) is not a delete, and each column holds the value of the latest change that set
   * it (not null) since the key's last delete. One latest-by-sequence (ROW_NUMBER() = 1) per column
   * over the changes that set it or delete the key (a delete sets it to null), joined to the keys
   * that are there: late changes take their place by sequence, as in SCD TYPE 1. Its state is one
   * row per key for each column.
   */
  private static String ignoringNulls(Statement.Cdc cdc, List<FlinkSql.Column> out) {
    String keys = cdc.keys().stream().map(Printer::identifier).collect(Collectors.joining(", "));
    String deleted =
        cdc.deleteWhen() == null ? "FALSE" : "COALESCE((" + cdc.deleteWhen() + "), FALSE)";
    List<FlinkSql.Column> values =
        out.stream().filter(c -> !cdc.keys().contains(c.name())).toList();
    List<String> selected = new ArrayList<>();
    for (FlinkSql.Column c : out) {
      int at = values.indexOf(c);
      String name = Printer.identifier(c.name());
      selected.add((at < 0 ? "r." : "c" + at + ".") + name + " AS " + name);
    }
    StringBuilder sql =
        new StringBuilder("SELECT ")
            .append(String.join(", ", selected))
            .append("\nFROM (SELECT ")
            .append(keys)
            .append(" FROM ")
            .append(latest(cdc, deleted + " AS " + CDC_DELETED, "TRUE"))
            .append(" WHERE NOT ")
            .append(CDC_DELETED)
            .append(") AS r");
    for (int i = 0; i < values.size(); i++) {
      String column = Printer.identifier(values.get(i).name());
      String alias = "c" + i;
      sql.append("\nLEFT JOIN ")
          .append(
              latest(
                  cdc,
                  "CASE WHEN " + deleted + " THEN NULL ELSE " + column + " END AS " + column,
                  column + " IS NOT NULL OR " + deleted))
          .append(" AS ")
          .append(alias)
          .append(" ON ")
          .append(
              cdc.keys().stream()
                  .map(
                      k ->
                          "r."
                              + Printer.identifier(k)
                              + " = "
                              + alias
                              + "."
                              + Printer.identifier(k))
                  .collect(Collectors.joining(" AND ")));
    }
    return sql.toString();
  }

  /**
   * The latest change of each key by sequence among those where {@code where} holds, as the keys
   * and {@code value}: ROW_NUMBER() = 1, so a change that arrives late takes its place.
   */
  private static String latest(Statement.Cdc cdc, String value, String where) {
    String keys = cdc.keys().stream().map(Printer::identifier).collect(Collectors.joining(", "));
    return "(SELECT * FROM (\nSELECT "
        + keys
        + ", "
        + value
        + ", ROW_NUMBER() OVER (PARTITION BY "
        + keys
        + " ORDER BY "
        + Printer.identifier(cdc.sequenceBy())
        + " DESC) AS "
        + CDC_RANK
        + " FROM "
        + cdc.source().sql()
        + " WHERE "
        + cdc.keys().stream()
            .map(k -> Printer.identifier(k) + " IS NOT NULL")
            .collect(Collectors.joining(" AND "))
        + " AND ("
        + where
        + ")\n) WHERE "
        + CDC_RANK
        + " = 1)";
  }

  /**
   * The change rows SCD TYPE 2 builds versions from: a table expression, and when one of its rows
   * is a delete.
   */
  private record Changes(String sql, String deleted) {

    /** The flow's source as it is, deleted where the delete condition holds. */
    static Changes of(Statement.Cdc cdc) {
      return new Changes(
          cdc.source().sql(),
          cdc.deleteWhen() == null ? "FALSE" : "COALESCE((" + cdc.deleteWhen() + "), FALSE)");
    }

    /**
     * IGNORE NULL UPDATES: each change with every column it leaves null filled in from the latest
     * change of its key, by sequence and up to its own, that set the column, unless a delete of the
     * key comes after that one (a delete sets every column to null). Per column, a join of each
     * change with the earlier changes of its key that set the column or delete the key, and the
     * latest of them (ROW_NUMBER() = 1), so a late change fills the changes after it too.
     */
    static Changes filled(Statement.Cdc cdc, List<FlinkSql.Column> out) {
      Changes source = of(cdc);
      List<String> keys = cdc.keys().stream().map(Printer::identifier).toList();
      String seq = Printer.identifier(cdc.sequenceBy());
      String present = present(cdc);
      String keyList = String.join(", ", keys);
      String sameKey =
          keys.stream().map(k -> "c." + k + " = n." + k).collect(Collectors.joining(" AND "));
      String rowKeys = keys.stream().map(k -> "c." + k).collect(Collectors.joining(", "));
      List<String> filledColumns =
          out.stream()
              .map(FlinkSql.Column::name)
              .filter(c -> !cdc.keys().contains(c) && !c.equals(cdc.sequenceBy()))
              .toList();
      StringBuilder sql = new StringBuilder("(SELECT r.*");
      for (int i = 0; i < filledColumns.size(); i++) {
        String column = Printer.identifier(filledColumns.get(i));
        sql.append(", f").append(i).append(".").append(column).append(" AS ").append(column);
      }
      sql.append("\nFROM (SELECT ")
          .append(keyList)
          .append(", ")
          .append(seq)
          .append(", MAX(")
          .append(source.deleted())
          .append(") AS ")
          .append(CDC_DELETED)
          .append(" FROM ")
          .append(source.sql())
          .append(" WHERE ")
          .append(present)
          .append(" GROUP BY ")
          .append(keyList)
          .append(", ")
          .append(seq)
          .append(") AS r");
      for (int i = 0; i < filledColumns.size(); i++) {
        String column = Printer.identifier(filledColumns.get(i));
        String alias = "f" + i;
        sql.append("\nLEFT JOIN (SELECT * FROM (\nSELECT ")
            .append(rowKeys)
            .append(", c.")
            .append(seq)
            .append(", CASE WHEN n.")
            .append(CDC_DELETED)
            .append(" THEN NULL ELSE n.")
            .append(column)
            .append(" END AS ")
            .append(column)
            .append(", ROW_NUMBER() OVER (PARTITION BY ")
            .append(rowKeys)
            .append(", c.")
            .append(seq)
            .append(" ORDER BY n.")
            .append(seq)
            .append(" DESC, n.")
            .append(CDC_DELETED)
            .append(" DESC) AS ")
            .append(CDC_RANK)
            .append("\nFROM (SELECT DISTINCT ")
            .append(keyList)
            .append(", ")
            .append(seq)
            .append(" FROM ")
            .append(source.sql())
            .append(" WHERE ")
            .append(present)
            .append(") AS c\nJOIN (SELECT ")
            .append(keyList)
            .append(", ")
            .append(seq)
            .append(", ")
            .append(column)
            .append(", ")
            .append(source.deleted())
            .append(" AS ")
            .append(CDC_DELETED)
            .append(" FROM ")
            .append(source.sql())
            .append(" WHERE ")
            .append(present)
            .append(" AND (")
            .append(column)
            .append(" IS NOT NULL OR ")
            .append(source.deleted())
            .append(")) AS n ON ")
            .append(sameKey)
            .append(" AND n.")
            .append(seq)
            .append(" <= c.")
            .append(seq)
            .append("\n) WHERE ")
            .append(CDC_RANK)
            .append(" = 1) AS ")
            .append(alias)
            .append(" ON ")
            .append(
                keys.stream()
                    .map(k -> "r." + k + " = " + alias + "." + k)
                    .collect(Collectors.joining(" AND ")))
            .append(" AND r.")
            .append(seq)
            .append(" = ")
            .append(alias)
            .append(".")
            .append(seq);
      }
      return new Changes(sql.append(")").toString(), CDC_DELETED);
    }
  }

  /** A change SCD TYPE 2 reads: its keys and its sequence are there. */
  private static String present(Statement.Cdc cdc) {
    return Stream.concat(cdc.keys().stream(), Stream.of(cdc.sequenceBy()))
        .map(c -> Printer.identifier(c) + " IS NOT NULL")
        .collect(Collectors.joining(" AND "));
  }

  /** The columns SCD TYPE 2 adds: where a version starts, and where it ends (null: current). */
  static final String START_AT = "__START_AT";

  static final String END_AT = "__END_AT";

  /**
   * SCD TYPE 2 as a query: each change that is not a delete is a version of its key, from its
   * sequence value to the smallest later sequence value of any change of that key, a delete
   * included (none: the current version). A late change finds its place by the same rule, and the
   * version before it gets a new end; changes repeated with the same sequence and values are one
   * version. An updating query, keyed by the keys and {@code __START_AT}.
   */
  private static String historyQuery(
      Statement.Cdc cdc, List<FlinkSql.Column> out, Changes changes) {
    String seq = Printer.identifier(cdc.sequenceBy());
    String present = present(cdc);
    List<String> grouped =
        new ArrayList<>(out.stream().map(c -> "v." + Printer.identifier(c.name())).toList());
    if (!grouped.contains("v." + seq)) {
      grouped.add("v." + seq);
    }
    return "SELECT "
        + out.stream()
            .map(c -> "v." + Printer.identifier(c.name()))
            .collect(Collectors.joining(", "))
        + ", v."
        + seq
        + " AS "
        + Printer.identifier(START_AT)
        + ", MIN(n."
        + seq
        + ") AS "
        + Printer.identifier(END_AT)
        + "\nFROM (SELECT * FROM "
        + changes.sql()
        + " WHERE "
        + present
        + " AND NOT "
        + changes.deleted()
        + ") AS v\nLEFT JOIN (SELECT "
        + Stream.concat(cdc.keys().stream(), Stream.of(cdc.sequenceBy()))
            .map(Printer::identifier)
            .collect(Collectors.joining(", "))
        + " FROM "
        + changes.sql()
        + " WHERE "
        + present
        + ") AS n\nON "
        + cdc.keys().stream()
            .map(k -> "v." + Printer.identifier(k) + " = n." + Printer.identifier(k))
            .collect(Collectors.joining(" AND "))
        + " AND n."
        + seq
        + " > v."
        + seq
        + "\nGROUP BY "
        + String.join(", ", grouped);
  }

  /**
   * SCD TYPE 2 with TRACK HISTORY ON as a query. A change that is not a delete opens a version when
   * no change of its key comes before it (by sequence), when the one before it is a delete, or when
   * a tracked column differs from the one before it; otherwise it updates the version it falls in.
   * A version runs from its opening change to the next opening change or delete of its key (none:
   * current), and holds the values of its latest change. Each step is a join or an aggregate over
   * every change of the key, so a late change finds its place: the change after it may open a
   * version, or no longer. An updating query, keyed by the keys and {@code __START_AT}; its state
   * holds every change of every key, as SCD TYPE 2's does.
   */
  private static String trackedHistoryQuery(
      Statement.Cdc cdc, List<FlinkSql.Column> out, Changes changeRows) {
    String seq = Printer.identifier(cdc.sequenceBy());
    List<String> keys = cdc.keys().stream().map(Printer::identifier).toList();
    String present = present(cdc);
    String deleted = changeRows.deleted();
    String source = changeRows.sql();
    String changes = "(SELECT * FROM " + source + " WHERE " + present + " AND NOT " + deleted + ")";
    List<String> tracked =
        out.stream()
            .map(FlinkSql.Column::name)
            .filter(cdc::tracks)
            .filter(c -> !cdc.keys().contains(c))
            .map(Printer::identifier)
            .toList();
    String keyList = String.join(", ", keys);
    BiFunction<String, String, String> sameKey =
        (a, b) ->
            keys.stream()
                .map(k -> a + "." + k + " = " + b + "." + k)
                .collect(Collectors.joining(" AND "));
    Function<String, String> qualifiedKeys =
        a -> keys.stream().map(k -> a + "." + k).collect(Collectors.joining(", "));
    // Each change that is not a delete, with the sequence of the change of its key before it.
    String previous =
        "(SELECT "
            + qualifiedKeys.apply("c")
            + ", c."
            + seq
            + ", MAX(p."
            + seq
            + ") AS __prev\nFROM "
            + changes
            + " AS c\nLEFT JOIN (SELECT "
            + keyList
            + ", "
            + seq
            + " FROM "
            + source
            + " WHERE "
            + present
            + ") AS p ON "
            + sameKey.apply("c", "p")
            + " AND p."
            + seq
            + " < c."
            + seq
            + "\nGROUP BY "
            + qualifiedKeys.apply("c")
            + ", c."
            + seq
            + ")";
    String differs =
        tracked.isEmpty()
            ? "FALSE"
            : tracked.stream()
                .map(col -> "c." + col + " IS DISTINCT FROM q." + col)
                .collect(Collectors.joining(" OR "));
    // The changes that open a version.
    String opening =
        "(SELECT DISTINCT "
            + qualifiedKeys.apply("c")
            + ", c."
            + seq
            + "\nFROM "
            + changes
            + " AS c\nJOIN "
            + previous
            + " AS pr ON "
            + sameKey.apply("c", "pr")
            + " AND pr."
            + seq
            + " = c."
            + seq
            + "\nLEFT JOIN (SELECT *, "
            + deleted
            + " AS __deleted FROM "
            + source
            + " WHERE "
            + present
            + ") AS q ON "
            + sameKey.apply("c", "q")
            + " AND q."
            + seq
            + " = pr.__prev\nWHERE pr.__prev IS NULL OR q.__deleted OR "
            + differs
            + ")";
    String boundaries =
        "(SELECT "
            + keyList
            + ", "
            + seq
            + " FROM "
            + opening
            + " UNION ALL SELECT "
            + keyList
            + ", "
            + seq
            + " FROM "
            + source
            + " WHERE "
            + present
            + " AND "
            + deleted
            + ")";
    String versions =
        "(SELECT "
            + qualifiedKeys.apply("o")
            + ", o."
            + seq
            + " AS __start, MIN(b."
            + seq
            + ") AS __end\nFROM "
            + opening
            + " AS o\nLEFT JOIN "
            + boundaries
            + " AS b ON "
            + sameKey.apply("o", "b")
            + " AND b."
            + seq
            + " > o."
            + seq
            + "\nGROUP BY "
            + qualifiedKeys.apply("o")
            + ", o."
            + seq
            + ")";
    String columns =
        out.stream().map(c -> Printer.identifier(c.name())).collect(Collectors.joining(", "));
    return "SELECT "
        + columns
        + ", __start AS "
        + Printer.identifier(START_AT)
        + ", __end AS "
        + Printer.identifier(END_AT)
        + " FROM (\nSELECT c.*, v.__start, v.__end, ROW_NUMBER() OVER (PARTITION BY "
        + qualifiedKeys.apply("c")
        + ", v.__start ORDER BY c."
        + seq
        + " DESC) AS "
        + CDC_RANK
        + "\nFROM "
        + versions
        + " AS v\nJOIN "
        + changes
        + " AS c ON "
        + sameKey.apply("v", "c")
        + " AND c."
        + seq
        + " >= v.__start AND (v.__end IS NULL OR c."
        + seq
        + " < v.__end)\n) WHERE "
        + CDC_RANK
        + " = 1";
  }

  /** An AUTO CDC flow's table and job: an upsert table keyed by {@code key}, compacted. */
  private Planned cdcPlanned(
      Request request,
      ObjectName flowName,
      MaterializedTableDefinition base,
      List<FlinkSql.Column> out,
      List<String> key,
      String query) {
    Statement.CreatePipelineTable pipeline = request.pipeline();
    Map<String, String> options = new LinkedHashMap<>(base.options());
    options.put("changelog.mode", "upsert");
    options.put("kafka.cleanup-policy", "compact");
    TableSchema schema =
        new TableSchema(
            out.stream()
                .map(
                    c ->
                        // As the source has it: the sink declares the key NOT NULL, and the
                        // query leaves out changes without a key.
                        Column.physical(c.name(), c.type(), !c.nullable(), null))
                .toList(),
            null,
            new TableSchema.PrimaryKey(null, key),
            pipeline.schema() == null ? List.of() : pipeline.schema().expectations());
    MaterializedTableDefinition job =
        new MaterializedTableDefinition(
            schema,
            request.flow().comment(),
            List.of(),
            null,
            options,
            base.freshness(),
            Clauses.RefreshMode.CONTINUOUS,
            new Clauses.StartMode(Clauses.StartMode.Kind.RESUME_OR_FROM_BEGINNING, null, null),
            query);
    ChangePlan plan =
        changes.plan(
            new ChangePlanner.Request(
                flowName, request.topic(), null, job, request.catalog(), true));
    MaterializedTableDefinition table =
        new MaterializedTableDefinition(
            schema,
            pipeline.comment(),
            List.of(),
            null,
            options,
            base.freshness(),
            Clauses.RefreshMode.CONTINUOUS,
            job.startMode(),
            query);
    return new Planned(table, job, plan);
  }

  private static QueryPlanner.QueryShape shape(
      QueryPlanner q, ObjectName name, MaterializedTableDefinition base, String query) {
    MaterializedTableDefinition probe =
        new MaterializedTableDefinition(
            null,
            null,
            List.of(),
            null,
            Map.of("changelog.mode", "append"),
            base.freshness(),
            Clauses.RefreshMode.CONTINUOUS,
            null,
            query);
    try {
      return q.validate(name, probe);
    } catch (QueryPlanner.InvalidQueryException e) {
      throw new ApiException(
          ErrorCode.INVALID_QUERY,
          "Invalid query for flow " + name.name() + ": " + e.getMessage(),
          e.properties());
    }
  }

  private static Optional<List<FlinkSql.Column>> declaredColumns(TableSchema schema) {
    if (schema == null || !TableSchema.hasDeclaredTypes(schema)) {
      return Optional.empty();
    }
    return Optional.of(columns(schema));
  }

  private static List<FlinkSql.Column> columns(TableSchema schema) {
    return schema.columns().stream()
        .filter(c -> c.kind() == Column.Kind.PHYSICAL)
        .map(c -> new FlinkSql.Column(c.name(), c.type(), !c.notNull()))
        .toList();
  }

  /**
   * The flow's query as rows of the table: by name, each query column goes into the table column of
   * its name and a table column the query lacks is NULL (it must be nullable); by position, the
   * i-th query column goes into the i-th table column. Types must be the table's; a nullable column
   * cannot go into a NOT NULL one. Every mismatch is a 400 naming the column.
   */
  static String mapped(
      Statement.CreateFlow flow,
      ObjectName table,
      List<FlinkSql.Column> produced,
      List<FlinkSql.Column> columns) {
    List<String> problems = new ArrayList<>();
    List<String> select = new ArrayList<>();
    if (flow.byName()) {
      for (FlinkSql.Column p : produced) {
        if (columns.stream().noneMatch(c -> c.name().equals(p.name()))) {
          Optional<FlinkSql.Column> nearly =
              columns.stream().filter(c -> c.name().equalsIgnoreCase(p.name())).findFirst();
          problems.add(
              "the query's column '"
                  + p.name()
                  + "' is not a column of "
                  + table
                  + nearly.map(c -> " (did you mean '" + c.name() + "'?)").orElse("")
                  + "; its columns are "
                  + columns.stream().map(FlinkSql.Column::name).toList());
        }
      }
      for (FlinkSql.Column c : columns) {
        Optional<FlinkSql.Column> p =
            produced.stream().filter(x -> x.name().equals(c.name())).findFirst();
        if (p.isEmpty()) {
          if (!c.nullable()) {
            problems.add(
                "column '"
                    + c.name()
                    + "' of "
                    + table
                    + " is NOT NULL and the query does not produce it");
          }
          select.add("CAST(NULL AS " + c.type() + ") AS " + Printer.identifier(c.name()));
        } else {
          check(p.get(), c, table, problems);
          select.add(cast(p.get(), c));
        }
      }
    } else {
      if (produced.size() != columns.size()) {
        problems.add(
            "the query produces "
                + produced.size()
                + " columns and "
                + table
                + " has "
                + columns.size()
                + " "
                + columns.stream().map(FlinkSql.Column::name).toList()
                + "; without BY NAME columns are matched by position");
      } else {
        for (int i = 0; i < columns.size(); i++) {
          check(produced.get(i), columns.get(i), table, problems);
          select.add(cast(produced.get(i), columns.get(i)));
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new ApiException(
          ErrorCode.INVALID_QUERY,
          "Flow "
              + flow.name().name()
              + " does not fit "
              + table
              + ": "
              + String.join("; ", problems),
          Map.of("problems", problems));
    }
    boolean identity =
        produced.size() == columns.size()
            && produced.stream()
                .map(FlinkSql.Column::name)
                .toList()
                .equals(columns.stream().map(FlinkSql.Column::name).toList());
    if (identity) {
      return flow.query();
    }
    return "SELECT " + String.join(", ", select) + " FROM (\n" + flow.query() + "\n)";
  }

  /** The query's column as the table's: renamed, and cast where the type widens. */
  private static String cast(FlinkSql.Column produced, FlinkSql.Column column) {
    String name = Printer.identifier(produced.name());
    boolean same =
        QueryPlanner.normalize(produced.type()).equals(QueryPlanner.normalize(column.type()));
    String value = same ? name : "CAST(" + name + " AS " + column.type() + ")";
    return value.equals(Printer.identifier(column.name()))
        ? value
        : value + " AS " + Printer.identifier(column.name());
  }

  /** Whether the query's column goes into the table's column; problems are added if not. */
  private static boolean check(
      FlinkSql.Column produced, FlinkSql.Column column, ObjectName table, List<String> problems) {
    String from = QueryPlanner.normalize(produced.type());
    String to = QueryPlanner.normalize(column.type());
    if (!from.equals(to) && !QueryPlanner.widens(from, to)) {
      problems.add(
          "column '"
              + column.name()
              + "' is "
              + column.type()
              + " in "
              + table
              + " but the query's '"
              + produced.name()
              + "' is "
              + produced.type()
              + "; CAST it in the query");
      return false;
    }
    if (produced.nullable() && !column.nullable()) {
      problems.add(
          "column '"
              + column.name()
              + "' of "
              + table
              + " is NOT NULL but the query's '"
              + produced.name()
              + "' can be NULL; filter or COALESCE it in the query");
      return false;
    }
    return true;
  }
}
