package dev.tributary.plan;

import dev.tributary.port.FlinkSql;
import dev.tributary.sql.Column;
import dev.tributary.sql.DeadLetterTable;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Printer;
import dev.tributary.sql.Statement;
import dev.tributary.sql.TableSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code 'error-handling.mode' = 'log'}: the records a Kafka source's format cannot read go to the
 * table's dead-letter table ({@link DeadLetterTable}).
 *
 * <p>How the job does it: each Kafka source is declared under {@link #raw} with its format guarded
 * in {@code log} mode, which keeps an unreadable record as a row carrying metadata {@code error}
 * and {@code raw} (dev.tributary.flinkformat); the source's own name becomes a view of the rows
 * without an error, which the table's query reads unchanged. The job is one statement set: the
 * table's INSERT, and an INSERT of the rows with an error into the dead-letter topic. Both sinks
 * write in transactions committed at the same checkpoints, so a record goes to exactly one of the
 * two topics, once.
 */
public final class DeadLetters {

  static final String SINK = "tributary_dead_letter";

  private static final String ERROR = "$tributary_error";
  private static final String RAW = "$tributary_raw";
  private static final String KEY = "$tributary_key";
  private static final String TOPIC = "$tributary_topic";
  private static final String PARTITION = "$tributary_partition";
  private static final String OFFSET = "$tributary_offset";
  private static final String TIMESTAMP = "$tributary_timestamp";

  /** The columns of a dead-letter table, as the job writes them. */
  static final List<FlinkSql.Column> COLUMNS =
      DeadLetterTable.schema().columns().stream()
          .map(c -> new FlinkSql.Column(c.name(), c.type(), !c.notNull()))
          .toList();

  private DeadLetters() {}

  /** The subject of the dead-letter topic's values, and its schema. */
  public static PipelinePlan.Subject subject(String topic) {
    return new PipelinePlan.Subject(
        topic + "-value", SchemaDocuments.of("json-registry", "dead_letter_value", COLUMNS));
  }

  /** The name under which a source is declared with its unreadable records kept. */
  public static ObjectName raw(ObjectName source) {
    return new ObjectName(source.catalog(), source.database(), source.name() + "$dead_letters");
  }

  /**
   * The declarations of a Kafka source whose options already read through the guarded format in log
   * mode: the source with its records' error, bytes and position under {@link #raw}, and under its
   * own name a view of the records that were read.
   */
  public static List<String> declarations(Statement.CreateSourceTable source) {
    Map<String, String> options = new LinkedHashMap<>(source.options());
    boolean valuePrefix = options.containsKey("value.format");
    String prefix = valuePrefix ? "value." : "";
    List<Column> columns = new ArrayList<>(source.schema().columns());
    boolean ownKey = options.containsKey("key.format");
    if (!ownKey) {
      // The key's bytes, read raw; the value format reads every other physical column.
      columns.add(Column.physical(KEY, "BYTES", false, null));
      if (!valuePrefix) {
        options.put("value.format", options.remove("format"));
        Map<String, String> moved = new LinkedHashMap<>();
        options.forEach(
            (k, v) -> {
              if (k.startsWith("guarded.")) {
                moved.put("value." + k, v);
              }
            });
        options.keySet().removeIf(k -> k.startsWith("guarded."));
        options.putAll(moved);
        prefix = "value.";
      }
      options.put("key.format", "raw");
      options.put("key.fields", KEY);
      options.put("value.fields-include", "EXCEPT_KEY");
    }
    String valueMeta = prefix.isEmpty() ? "value." : prefix;
    columns.add(Column.metadata(ERROR, "STRING", valueMeta + "error", true, null));
    columns.add(Column.metadata(RAW, "BYTES", valueMeta + "raw", true, null));
    columns.add(Column.metadata(TOPIC, "STRING", "topic", true, null));
    columns.add(Column.metadata(PARTITION, "INT", "partition", true, null));
    columns.add(Column.metadata(OFFSET, "BIGINT", "offset", true, null));
    columns.add(Column.metadata(TIMESTAMP, "TIMESTAMP_LTZ(3)", "timestamp", true, null));
    TableSchema schema =
        new TableSchema(
            columns,
            source.schema().watermark(),
            source.schema().primaryKey(),
            source.schema().expectations());
    String rawTable =
        Printer.print(
            new Statement.CreateSourceTable(
                raw(source.name()), true, schema, source.comment(), options));
    String selected =
        source.schema().columns().stream()
            .map(c -> Printer.identifier(c.name()))
            .collect(Collectors.joining(", "));
    String view =
        "CREATE TEMPORARY VIEW "
            + source.name().sql()
            + " AS SELECT "
            + selected
            + " FROM "
            + raw(source.name()).sql()
            + " WHERE "
            + Printer.identifier(ERROR)
            + " IS NULL";
    return List.of(rawTable, view);
  }

  /** The dead-letter topic as the job's second sink. */
  public static String sinkTable(
      String topic,
      String bootstrapServers,
      String registryUrl,
      Duration transactionTimeout,
      String transactionalIdPrefix) {
    PipelinePlan.Subject subject = subject(topic);
    Map<String, String> options = new LinkedHashMap<>();
    options.put("connector", "kafka");
    options.put("topic", topic);
    options.put("properties.bootstrap.servers", bootstrapServers);
    options.put("value.format", "json-confluent");
    options.put("value.json-confluent.url", registryUrl);
    options.put("value.json-confluent.subject", subject.name());
    options.put("value.json-confluent.schema", subject.schema().text());
    options.put("sink.delivery-guarantee", "exactly-once");
    options.put("sink.transactional-id-prefix", transactionalIdPrefix + "-dead-letters");
    options.put("properties.transaction.timeout.ms", String.valueOf(transactionTimeout.toMillis()));
    return PipelinePlan.temporaryTable(SINK, COLUMNS, "", options);
  }

  /**
   * The job of a table that logs: its own INSERT and the INSERT of its sources' unreadable records
   * into the dead-letter topic, as one statement set (one job, one checkpoint for both sinks).
   */
  public static String statementSet(
      ObjectName table, String tableInsert, List<Statement.CreateSourceTable> sources) {
    List<String> selects = new ArrayList<>();
    for (Statement.CreateSourceTable source : sources) {
      boolean ownKey = source.options().containsKey("key.format");
      selects.add(
          "SELECT CAST(CURRENT_TIMESTAMP AS TIMESTAMP_LTZ(3)), "
              + Printer.identifier(ERROR)
              + ", "
              + Printer.string(table.toString())
              + ", "
              + Printer.string(source.name().toString())
              + ", "
              + Printer.identifier(TOPIC)
              + ", "
              + Printer.identifier(PARTITION)
              + ", "
              + Printer.identifier(OFFSET)
              + ", "
              + Printer.identifier(TIMESTAMP)
              + ", "
              + (ownKey ? "CAST(NULL AS BYTES)" : Printer.identifier(KEY))
              + ", "
              + Printer.identifier(RAW)
              + " FROM "
              + raw(source.name()).sql()
              + " WHERE "
              + Printer.identifier(ERROR)
              + " IS NOT NULL");
    }
    return "EXECUTE STATEMENT SET BEGIN\n"
        + tableInsert
        + ";\nINSERT INTO "
        + SINK
        + "\n"
        + String.join("\nUNION ALL\n", selects)
        + ";\nEND";
  }
}
