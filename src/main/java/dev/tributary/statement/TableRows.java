package dev.tributary.statement;

import dev.tributary.port.FlinkSql;
import dev.tributary.port.SchemaRegistry;
import dev.tributary.port.Topics;
import dev.tributary.sql.Column;
import dev.tributary.sql.Printer;
import dev.tributary.sql.Statement;
import dev.tributary.sql.TableSchema;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.Json;
import dev.tributary.table.MaterializedTable;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.RecordValues;
import dev.tributary.table.TableStatus;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.stream.Collectors;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;

/**
 * SELECT over a materialized table: the newest committed rows of its topic (at most {@link
 * #MAX_SCAN} read; for an upsert table the latest row per key, deletions dropped), with the table's
 * columns as others read it: physical columns from the record value, metadata columns from the
 * record, and computed columns evaluated by Flink over exactly those rows. A look at the data, not
 * a scan of the whole table.
 */
@Component
class TableRows {

  /** Rows a SELECT over a materialized table reads at most, newest first. */
  static final int MAX_SCAN = 1000;

  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

  private final MaterializedTableService tables;
  private final Topics topics;
  private final FlinkSql flink;
  private final SchemaRegistry registry;

  TableRows(
      MaterializedTableService tables, Topics topics, FlinkSql flink, SchemaRegistry registry) {
    this.tables = tables;
    this.topics = topics;
    this.flink = flink;
    this.registry = registry;
  }

  /**
   * What a SELECT reads, taken from the store: the topic, the table's columns and the query's
   * columns and predicates. Answering it reads Kafka (and Flink for computed columns) only.
   */
  record Request(
      String topic,
      String changelogMode,
      List<FlinkSql.Column> schema,
      List<Column> extras,
      List<String> columns,
      Set<String> needed,
      Statement.Select select) {}

  Request request(MaterializedTable table, Statement.Select select) {
    TableStatus status = table.status();
    if (status.topic() == null || status.schema().isEmpty()) {
      throw new ApiException(
          ErrorCode.CONFLICT,
          table.objectName() + " has no data yet (phase " + table.getPhase() + ")");
    }
    TableSchema declared = tables.spec(table).definition().schema();
    List<Column> extras =
        declared == null
            ? List.of()
            : declared.columns().stream().filter(c -> c.kind() != Column.Kind.PHYSICAL).toList();
    List<String> schema = new ArrayList<>();
    status.schema().forEach(c -> schema.add(c.name()));
    extras.forEach(c -> schema.add(c.name()));
    List<String> columns = select.columns().equals(List.of("*")) ? schema : select.columns();
    Set<String> needed = new LinkedHashSet<>(columns);
    select.where().forEach(p -> needed.add(p.column()));
    for (String c : needed) {
      if (!schema.contains(c)) {
        throw new ApiException(
            ErrorCode.VALIDATION_FAILED,
            table.objectName() + " has no column '" + c + "'; it has " + schema);
      }
    }
    return new Request(
        status.topic(), status.changelogMode(), status.schema(), extras, columns, needed, select);
  }

  TableQueries.Rows answer(Request request, BiPredicate<Object, Statement.Predicate> matches) {
    List<Map<String, Object>> rows = read(request);
    List<Column> computed =
        request.extras().stream()
            .filter(c -> c.kind() == Column.Kind.COMPUTED && request.needed().contains(c.name()))
            .toList();
    if (!computed.isEmpty() && !rows.isEmpty()) {
      evaluate(request, computed, rows);
    }
    Statement.Select select = request.select();
    List<List<Object>> result = new ArrayList<>();
    for (Map<String, Object> row : rows) {
      if (select.where().stream().allMatch(p -> matches.test(row.get(p.column()), p))) {
        result.add(request.columns().stream().map(row::get).toList());
      }
      if (select.limit() != null && result.size() >= select.limit()) {
        break;
      }
    }
    return new TableQueries.Rows(request.columns(), result);
  }

  /**
   * The newest rows, newest first, with physical and metadata columns filled in. Records are read
   * as they were written: JSON or Avro (by the writer schema their id names), one row per record
   * (the newest per key for upsert tables, tombstones removing it), and for retract tables the
   * change envelopes applied in order (an insert adds its row, a delete removes an equal one).
   */
  private List<Map<String, Object>> read(Request request) {
    boolean upsert = "upsert".equals(request.changelogMode());
    boolean retract = "retract".equals(request.changelogMode());
    Map<String, Map<String, Object>> latest = new LinkedHashMap<>();
    RecordValues values = new RecordValues(registry);
    int n = 0;
    for (Topics.TopicRecord record : topics.latest(request.topic(), MAX_SCAN)) {
      if (record.value() == null) {
        if (upsert && record.key() != null) {
          latest.remove(record.keyText());
        }
        continue;
      }
      Map<String, Object> fields = fields(record, values);
      if (retract) {
        Object op = fields.get("op");
        if ("d".equals(op)) { // a delete, or the old row of an update
          Map<String, Object> before = physical(request, fields.get("before"));
          // The first (oldest) row equal to the deleted one goes.
          for (Iterator<Map<String, Object>> rows = latest.values().iterator(); rows.hasNext(); ) {
            if (physical(request, rows.next()).equals(before)) {
              rows.remove();
              break;
            }
          }
          continue;
        }
        fields = asMap(fields.get("after"));
      }
      String key = upsert && record.key() != null ? record.keyText() : "#" + n++;
      latest.remove(key);
      Map<String, Object> row = physical(request, fields);
      for (Column c : request.extras()) {
        if (c.kind() == Column.Kind.METADATA) {
          row.put(c.name(), metadata(c.metadataKey() != null ? c.metadataKey() : c.name(), record));
        }
      }
      latest.put(key, row);
    }
    List<Map<String, Object>> rows = new ArrayList<>(latest.values());
    Collections.reverse(rows);
    return rows;
  }

  private static Map<String, Object> physical(Request request, Object fields) {
    Map<String, Object> source = asMap(fields);
    Map<String, Object> row = new HashMap<>();
    request.schema().forEach(c -> row.put(c.name(), comparable(source.get(c.name()))));
    return row;
  }

  /**
   * Numbers as long or double, so that a row decoded from JSON equals one decoded from Avro; nested
   * rows, arrays and maps as JSON text.
   */
  private static Object comparable(Object v) {
    if (v instanceof Map<?, ?> || v instanceof List<?>) {
      return Json.write(v);
    }
    if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    if (v instanceof Float f) {
      return f.doubleValue();
    }
    return v;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> asMap(Object value) {
    return value instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  /** A record value's fields, decoded as it was written. */
  private static Map<String, Object> fields(Topics.TopicRecord record, RecordValues values) {
    try {
      return asMap(values.decode(record.value()));
    } catch (RuntimeException e) {
      throw new ApiException(
          ErrorCode.CONFLICT,
          "The record at partition "
              + record.partition()
              + ", offset "
              + record.offset()
              + " cannot be read as the table writes its records: "
              + e.getMessage());
    }
  }

  private static Object metadata(String key, Topics.TopicRecord record) {
    return switch (key) {
      case "timestamp" -> TIMESTAMP.format(record.timestamp());
      case "partition" -> record.partition();
      case "offset" -> record.offset();
      default -> null; // headers, timestamp-type, leader-epoch: not read here
    };
  }

  /**
   * Computed columns as Flink evaluates them: one statement over the rows read, as a VALUES list of
   * their physical and metadata columns, in the same order.
   *
   * <p>The VALUES list holds only literals: each value as a string literal (with a terminator, so
   * that the CHAR padding of shorter strings and the value's own trailing spaces are told apart)
   * and a boolean literal saying whether it is NULL; an outer projection casts them to the declared
   * types. Calcite keeps a list of literals as one Values node, but turns rows holding any other
   * expression (a CAST) into a UNION ALL of one projection per row: a thousand-branch plan that
   * took Flink a minute to compile and run.
   */
  private void evaluate(Request request, List<Column> computed, List<Map<String, Object>> rows) {
    Map<String, String> types = new LinkedHashMap<>();
    request.schema().forEach(c -> types.put(c.name(), c.type()));
    request.extras().stream()
        .filter(c -> c.kind() == Column.Kind.METADATA)
        .forEach(c -> types.put(c.name(), c.type()));
    List<String> values = new ArrayList<>();
    for (int i = 0; i < rows.size(); i++) {
      Map<String, Object> row = rows.get(i);
      StringBuilder tuple = new StringBuilder("(").append(i);
      for (String column : types.keySet()) {
        Object v = row.get(column);
        tuple
            .append(", ")
            .append(Printer.string((v == null ? "" : String.valueOf(v)) + "|"))
            .append(v == null ? ", TRUE" : ", FALSE");
      }
      values.add(tuple.append(")").toString());
    }
    List<String> names = new ArrayList<>(List.of("`__row`"));
    List<String> typed = new ArrayList<>(List.of("`__row`"));
    int n = 0;
    for (Map.Entry<String, String> e : types.entrySet()) {
      String text = "`__v" + n + "`";
      String isNull = "`__n" + n + "`";
      names.add(text);
      names.add(isNull);
      String unpadded = "RTRIM(" + text + ")";
      typed.add(
          "CASE WHEN "
              + isNull
              + " THEN CAST(NULL AS "
              + e.getValue()
              + ") ELSE CAST(SUBSTRING("
              + unpadded
              + " FROM 1 FOR CHAR_LENGTH("
              + unpadded
              + ") - 1) AS "
              + e.getValue()
              + ") END AS "
              + Printer.identifier(e.getKey()));
      n++;
    }
    String query =
        "SELECT `__row`, "
            + computed.stream()
                .map(c -> c.expression() + " AS " + Printer.identifier(c.name()))
                .collect(Collectors.joining(", "))
            + " FROM (SELECT "
            + String.join(", ", typed)
            + " FROM (VALUES "
            + String.join(", ", values)
            + ") AS v("
            + String.join(", ", names)
            + ")) AS t";
    FlinkSql.Session session = flink.openSession("tributary-select", Map.of());
    try {
      for (List<Object> result : flink.execute(session, query).rows()) {
        Map<String, Object> row = rows.get(((Number) result.get(0)).intValue());
        for (int c = 0; c < computed.size(); c++) {
          Object v = result.get(c + 1);
          row.put(computed.get(c).name(), v instanceof JsonNode node ? scalar(node) : v);
        }
      }
    } catch (FlinkSql.StatementFailedException e) {
      if (e.getMessage().contains("network buffers")
          || e.getMessage().contains("NoResourceAvailable")
          || e.getMessage().contains("required resources")) {
        throw new ApiException(
            ErrorCode.DEPENDENCY_UNAVAILABLE,
            "Flink has no capacity to evaluate the computed columns now: " + e.getMessage());
      }
      throw new ApiException(
          ErrorCode.INVALID_QUERY, "A computed column could not be evaluated: " + e.getMessage());
    } finally {
      flink.closeSession(session);
    }
  }

  static Object scalar(JsonNode node) {
    if (node == null || node.isMissingNode() || node.isNull()) {
      return null;
    }
    return node.isValueNode()
        ? (node.isNumber()
            ? node.numberValue()
            : node.isBoolean() ? node.asBoolean() : node.asString())
        : node.toString();
  }
}
