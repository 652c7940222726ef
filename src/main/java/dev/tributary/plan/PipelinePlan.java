package dev.tributary.plan;

import dev.tributary.port.FlinkSql;
import dev.tributary.port.SchemaRegistry;
import dev.tributary.port.Topics;
import dev.tributary.sql.Clauses;
import dev.tributary.sql.DeadLetterTable;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Printer;
import dev.tributary.sql.TableOptions;
import dev.tributary.sql.TableSchema;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What a materialized table means in Kafka, the registry and Flink: the backing topic, the key and
 * value subjects, and the SQL Gateway statements of its job. Pure: the same inputs always give the
 * same plan, so a resubmitted job has the same operators as the one it restores from.
 */
public record PipelinePlan(
    ObjectName table,
    String topicName,
    String pipelineName,
    MaterializedTableDefinition effective,
    List<FlinkSql.Column> columns,
    String bootstrapServers,
    String registryUrl) {

  static final String SINK = "tributary_sink";

  /**
   * Topic configs that the definition owns: set from its options, and removed from the topic (back
   * to the broker's default) when the option is reset.
   */
  public static final List<String> MANAGED_TOPIC_CONFIGS =
      List.of(
          "cleanup.policy",
          "retention.ms",
          "retention.bytes",
          "max.message.bytes",
          "min.compaction.lag.ms");

  /**
   * The Flink format each format option writes with. The two JSON ones are this project's ({@code
   * dev.tributary.flinkformat}, the flink-format jar on the cluster); avro-confluent is Flink's.
   */
  static final Map<String, String> FLINK_FORMATS =
      Map.of(
          "json-registry", "json-confluent",
          "avro-registry", "avro-confluent",
          "raw", "raw");

  /** A retract table's value: the change envelope, in the Confluent wire format. */
  static final String RETRACT_FORMAT = "debezium-json-registry";

  private static final Map<String, String> ALL_FLINK_FORMATS = allFlinkFormats();

  private static Map<String, String> allFlinkFormats() {
    Map<String, String> all = new LinkedHashMap<>(FLINK_FORMATS);
    all.put(RETRACT_FORMAT, "debezium-json-confluent");
    return Map.copyOf(all);
  }

  /** A short hash of everything that shapes the Flink job, and nothing else. */
  public record Fingerprint(String value) {}

  /**
   * What the job depends on: the query, the columns it writes, the key, the changelog mode and the
   * formats. Topic options, FRESHNESS, comments, watermarks and START_MODE are left out: changing
   * them must not restart the job without its state.
   */
  public static Fingerprint fingerprint(
      MaterializedTableDefinition effective, List<FlinkSql.Column> columns) {
    String shape =
        String.join(
            "\n",
            effective.query(),
            columns.toString(),
            String.valueOf(effective.schema() == null ? null : effective.schema().primaryKey()),
            effective.distribution().columns().toString(),
            String.valueOf(effective.options().get("changelog.mode")),
            String.valueOf(effective.options().get("key.format")),
            String.valueOf(effective.options().get("value.format")));
    if (effective.schema() != null && !effective.schema().expectations().isEmpty()) {
      // Only then: the job names of tables without expectations stay what they were.
      shape += "\n" + effective.schema().expectations();
    }
    if (DeadLetterTable.logs(effective.options())) {
      // A second sink: a job of another shape (and likewise the other way round).
      shape += "\ndead letters: " + DeadLetterTable.target(ObjectName.of("t"), effective.options());
    }
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256").digest(shape.getBytes(StandardCharsets.UTF_8));
      return new Fingerprint(HexFormat.of().formatHex(hash, 0, 4));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A subject to register, and its schema. */
  public record Subject(String name, SchemaRegistry.Schema schema) {}

  public String changelogMode() {
    return effective.options().get("changelog.mode");
  }

  /** Distribution columns, else the primary key, else none. */
  public List<String> keyColumns() {
    if (!effective.distribution().columns().isEmpty()) {
      return effective.distribution().columns();
    }
    return effective.schema() != null && effective.schema().primaryKey() != null
        ? effective.schema().primaryKey().columns()
        : List.of();
  }

  /** The compute pool the table's jobs run on: its {@code 'compute-pool'}, else the default. */
  public String pool() {
    return TableOptions.pool(effective.options());
  }

  public Topics.TopicSpec topic() {
    Map<String, String> options = effective.options();
    Map<String, String> configs = new LinkedHashMap<>();
    configs.put(
        "cleanup.policy",
        switch (options.get("kafka.cleanup-policy")) {
          case "compact" -> "compact";
          case "delete-compact" -> "compact,delete";
          default -> "delete";
        });
    optional(options, "kafka.retention.time")
        .ifPresent(v -> configs.put("retention.ms", millis(v)));
    optional(options, "kafka.retention.size")
        .ifPresent(v -> configs.put("retention.bytes", bytes(v)));
    optional(options, "kafka.max-message-size")
        .ifPresent(v -> configs.put("max.message.bytes", bytes(v)));
    optional(options, "kafka.compaction.time")
        .ifPresent(v -> configs.put("min.compaction.lag.ms", millis(v)));
    return new Topics.TopicSpec(topicName, effective.distribution().buckets(), configs);
  }

  public List<Subject> subjects() {
    List<Subject> subjects = new ArrayList<>();
    List<String> key = keyColumns();
    List<FlinkSql.Column> columns = writtenColumns();
    if (!key.isEmpty()) {
      List<FlinkSql.Column> keyColumns =
          columns.stream().filter(c -> key.contains(c.name())).toList();
      subjects.add(
          new Subject(
              topicName + "-key",
              SchemaDocuments.of(format("key.format"), table.name() + "_key", keyColumns)));
    }
    subjects.add(
        new Subject(
            topicName + "-value",
            "retract".equals(changelogMode())
                ? SchemaDocuments.debeziumEnvelope(table.name() + "_value", columns)
                : SchemaDocuments.of(format("value.format"), table.name() + "_value", columns)));
    return subjects;
  }

  /**
   * The job's configuration, given as properties of its gateway session (one round trip instead of
   * a SET each); with {@code restorePath}, the job restores from that savepoint or checkpoint.
   */
  public Map<String, String> sessionProperties(String restorePath) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("pipeline.name", pipelineName);
    properties.put("execution.checkpointing.interval", checkpointInterval().toMillis() + " ms");
    properties.put("execution.checkpointing.mode", "EXACTLY_ONCE");
    properties.put(
        "execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
    // The reconciler restarts failed jobs itself, from their latest checkpoint, with backoff.
    properties.put("restart-strategy.type", "none");
    if (restorePath != null) {
      properties.put("execution.state-recovery.path", restorePath);
    }
    return properties;
  }

  /**
   * The sink table of the job's session; then {@link #insert()}. The sink's transactions stay open
   * for a checkpoint interval; their timeout is the broker's maximum, so that a slow checkpoint or
   * a restart does not abort them (the plan refuses an interval that cannot fit).
   */
  public List<String> jobStatements(Duration transactionMaxTimeout) {
    return jobStatements(transactionMaxTimeout, pipelineName, Map.of());
  }

  /**
   * As {@link #jobStatements(Duration)}, with the sink's transactional ids under {@code
   * transactionalIdPrefix}. The refreshes of a FULL table share one (they never run at once): the
   * sink of a new attempt aborts the transactions its prefix left open (Flink's Kafka sink probes
   * and aborts them at start), so an attempt killed mid-write does not hold every read_committed
   * reader of the topic back until its transaction times out.
   */
  public List<String> jobStatements(Duration transactionMaxTimeout, String transactionalIdPrefix) {
    return jobStatements(transactionMaxTimeout, transactionalIdPrefix, Map.of());
  }

  /**
   * As {@link #jobStatements(Duration, String)}, with the registry's ids of the subjects' schemas
   * resolved by the caller ({@link #idsPassed}), by subject: the writers of those subjects open
   * without asking the registry. A subject without an id is resolved by its writer.
   */
  public List<String> jobStatements(
      Duration transactionMaxTimeout,
      String transactionalIdPrefix,
      Map<String, Integer> schemaIds) {
    String sink = sinkTable(transactionMaxTimeout, transactionalIdPrefix, schemaIds);
    if (expectations().isEmpty()) {
      return List.of(sink);
    }
    return List.of(
        sink,
        "CREATE TEMPORARY SYSTEM FUNCTION "
            + EXPECTATIONS_FUNCTION
            + " AS "
            + Printer.string(EXPECTATIONS_CLASS)
            + " LANGUAGE JAVA");
  }

  /**
   * The subjects whose writers take a resolved schema id (the service's JSON formats; Flink's
   * avro-confluent resolves its own).
   */
  public List<Subject> idsPassed() {
    return subjects().stream()
        .filter(
            s ->
                ID_TAKING_FORMATS.contains(
                    ALL_FLINK_FORMATS.get(formatOf(s.name().endsWith("-key") ? "key" : "value"))))
        .toList();
  }

  private static final Set<String> ID_TAKING_FORMATS =
      Set.of("json-confluent", "debezium-json-confluent");

  private String formatOf(String part) {
    return part.equals("value") && "retract".equals(changelogMode())
        ? RETRACT_FORMAT
        : format(part + ".format");
  }

  /**
   * The longest checkpoint interval a broker with this {@code transaction.max.timeout.ms} can hold:
   * a transaction is open for one interval plus the time to complete the checkpoint.
   */
  public static Duration longestInterval(Duration transactionMaxTimeout) {
    return transactionMaxTimeout.minus(COMMIT_MARGIN);
  }

  /** Time a checkpoint may take to complete and commit after its interval. */
  static final Duration COMMIT_MARGIN = Duration.ofMinutes(1);

  /** The same plan for a job of another name (a refresh job: its own transactional ids). */
  public PipelinePlan withPipelineName(String name) {
    return new PipelinePlan(
        table, topicName, name, effective, columns, bootstrapServers, registryUrl);
  }

  /**
   * The INSERT of a FULL refresh: the query's result, only the rows of {@code partition} when it
   * names one ({@code column = 'value'} for each, as Flink's refresh filters a partition).
   */
  public String refreshInsert(Map<String, String> partition) {
    String insert = insert();
    if (partition.isEmpty()) {
      return insert;
    }
    String select = insert.substring(("INSERT INTO " + SINK + "\n").length());
    return "INSERT INTO "
        + SINK
        + "\nSELECT * FROM (\n"
        + select
        + "\n) WHERE "
        + partition.entrySet().stream()
            .map(e -> Printer.identifier(e.getKey()) + " = " + Printer.string(e.getValue()))
            .collect(Collectors.joining(" AND "));
  }

  /**
   * Session properties of a refresh job: BATCH when every source is insert-only (Flink reads
   * updating sources in STREAMING mode only), then with checkpoints so that the exactly-once sink
   * commits, the last one when the bounded sources end. No restarts: a failed run is retried by the
   * reconciler from the same bounds.
   */
  public Map<String, String> refreshSessionProperties(boolean batch) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("pipeline.name", pipelineName);
    properties.put("execution.runtime-mode", batch ? "batch" : "streaming");
    properties.put("restart-strategy.type", "none");
    if (!batch) {
      properties.put("execution.checkpointing.interval", "1 s");
      properties.put("execution.checkpointing.mode", "EXACTLY_ONCE");
      // A checkpoint that meets a finishing source is declined; only the final one must succeed.
      properties.put("execution.checkpointing.tolerable-failed-checkpoints", "1000");
    }
    return properties;
  }

  public String insert() {
    return "INSERT INTO " + SINK + "\n" + checked(select());
  }

  private String select() {
    if (TableSchema.namesOnly(effective.schema())) {
      // The column list orders the query's columns: select them by name, in that order.
      return "SELECT " + columnList() + " FROM (\n" + effective.query() + "\n)";
    }
    return effective.query();
  }

  private String columnList() {
    return columns.stream()
        .map(c -> Printer.identifier(c.name()))
        .collect(Collectors.joining(", "));
  }

  /** The table's data quality expectations (CONSTRAINT ... EXPECT), in declaration order. */
  public List<TableSchema.Expectation> expectations() {
    return effective.schema() == null ? List.of() : effective.schema().expectations();
  }

  /** The function that evaluates and counts expectations (dev.tributary.flinkformat). */
  static final String EXPECTATIONS_FUNCTION = "tributary_expectations";

  /**
   * The package of the flink-format jar: the service names its classes for Flink by text only
   * (nothing in the service depends on the jar, ArchitectureTest); PipelinePlanTest checks the
   * names against the classes.
   */
  static final String FLINK_FORMAT_PACKAGE = "dev.tributary.flinkformat";

  static final String EXPECTATIONS_CLASS = FLINK_FORMAT_PACKAGE + ".Expectations";

  /**
   * The rows of {@code select} that pass the expectations the table declares: each row is checked
   * against all of them in one call, which counts passed and failed rows per expectation, drops the
   * row for a DROP ROW violation and fails the job for a FAIL UPDATE one (with the row as JSON).
   */
  String checked(String select) {
    List<TableSchema.Expectation> expectations = expectations();
    if (expectations.isEmpty()) {
      return select;
    }
    String spec =
        expectations.stream()
            .map(e -> action(e.onViolation()) + ":" + e.name())
            .collect(Collectors.joining("\n"));
    boolean fails =
        expectations.stream().anyMatch(e -> e.onViolation() == TableSchema.OnViolation.FAIL_UPDATE);
    String sample =
        fails
            ? "JSON_OBJECT("
                + columns.stream()
                    .map(
                        c ->
                            "KEY "
                                + Printer.string(c.name())
                                + " VALUE CAST("
                                + Printer.identifier(c.name())
                                + " AS STRING)")
                    .collect(Collectors.joining(", "))
                + " NULL ON NULL)"
            : "CAST(NULL AS STRING)";
    return "SELECT "
        + columnList()
        + " FROM (\n"
        + select
        + "\n) WHERE "
        + EXPECTATIONS_FUNCTION
        + "("
        + Printer.string(spec)
        + ", "
        + sample
        + expectations.stream().map(e -> ", (" + e.expression() + ")").collect(Collectors.joining())
        + ")";
  }

  private static String action(TableSchema.OnViolation onViolation) {
    if (onViolation == null) {
      return "keep";
    }
    return switch (onViolation) {
      case DROP_ROW -> "drop";
      case FAIL_UPDATE -> "fail";
    };
  }

  /** The source format that applies {@code error-handling.mode} (dev.tributary.flinkformat). */
  static final String GUARDED = "guarded";

  /**
   * Options that read a Kafka source's values through the guarded format when the table sets {@code
   * error-handling.mode}: its format becomes the guarded one's inner format, and that format's
   * options move under it. Empty when the table does not set it.
   */
  public Map<String, String> errorHandling(Map<String, String> source) {
    String mode = effective.options().get("error-handling.mode");
    if (mode == null) {
      return Map.of();
    }
    String prefix = source.containsKey("value.format") ? "value." : "";
    String format = source.get(prefix + "format");
    if (format == null || format.equals(GUARDED)) {
      return Map.of();
    }
    Map<String, String> options = new LinkedHashMap<>();
    options.put(prefix + "format", GUARDED);
    options.put(prefix + GUARDED + ".format", format);
    options.put(prefix + GUARDED + ".mode", mode);
    source.forEach(
        (key, value) -> {
          if (key.startsWith(prefix + format + ".")) {
            options.put(prefix + GUARDED + "." + key.substring(prefix.length()), value);
          }
        });
    return options;
  }

  /**
   * Per-partition offsets as the Kafka connector's {@code scan.*.specific-offsets} options take
   * them: {@code partition:0,offset:42;partition:1,offset:7}.
   */
  public static String specificOffsets(Map<Integer, Long> offsets) {
    return new TreeMap<>(offsets)
        .entrySet().stream()
            .map(e -> "partition:" + e.getKey() + ",offset:" + e.getValue())
            .collect(Collectors.joining(";"));
  }

  /** Freshness is how stale the table may be: rows commit at every checkpoint. */
  public Duration checkpointInterval() {
    Duration freshness = effective.freshness().toDuration();
    return freshness.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : freshness;
  }

  /**
   * Options that make a Kafka source start where START_MODE says. On resume from a savepoint or
   * checkpoint the offsets in the state win, so these only matter for a fresh start.
   */
  public Map<String, String> sourceStartOptions(Instant now) {
    Clauses.StartMode mode = effective.startMode();
    return switch (mode.kind()) {
      case FROM_BEGINNING, RESUME_OR_FROM_BEGINNING ->
          Map.of("scan.startup.mode", "earliest-offset");
      case FROM_NOW, RESUME_OR_FROM_NOW -> {
        Duration back = mode.offset() == null ? Duration.ZERO : mode.offset().toDuration();
        yield Map.of(
            "scan.startup.mode",
            "timestamp",
            "scan.startup.timestamp-millis",
            String.valueOf(now.minus(back).toEpochMilli()));
      }
      case FROM_TIMESTAMP, RESUME_OR_FROM_TIMESTAMP ->
          Map.of(
              "scan.startup.mode",
              "timestamp",
              "scan.startup.timestamp-millis",
              String.valueOf(epochMillis(mode.timestamp())));
    };
  }

  /**
   * The columns as the job writes them: Flink makes primary key columns NOT NULL, so the sink
   * declares them so in every changelog mode and the schemas say what is written; in Avro, with the
   * types Avro carries (see {@link SchemaDocuments#asAvroCarries}).
   */
  private List<FlinkSql.Column> writtenColumns() {
    List<String> primaryKey =
        effective.schema() != null && effective.schema().primaryKey() != null
            ? effective.schema().primaryKey().columns()
            : List.of();
    boolean avro =
        !"retract".equals(changelogMode())
                && "avro-registry".equals(effective.options().get("value.format"))
            || !keyColumns().isEmpty()
                && "avro-registry".equals(effective.options().get("key.format"));
    return columns.stream()
        .map(
            c -> primaryKey.contains(c.name()) ? new FlinkSql.Column(c.name(), c.type(), false) : c)
        .map(c -> avro ? SchemaDocuments.asAvroCarries(c) : c)
        .toList();
  }

  private String sinkTable(
      Duration transactionTimeout, String transactionalIdPrefix, Map<String, Integer> schemaIds) {
    String mode = changelogMode();
    List<String> key = keyColumns();
    Map<String, String> options = new LinkedHashMap<>();
    options.put("connector", "upsert".equals(mode) ? "upsert-kafka" : "kafka");
    options.put("topic", topicName);
    options.put("properties.bootstrap.servers", bootstrapServers);
    String valueFormat = "retract".equals(mode) ? RETRACT_FORMAT : format("value.format");
    options.put("value.format", ALL_FLINK_FORMATS.get(valueFormat));
    registryOptions(options, "value", valueFormat, schemaIds);
    if (!key.isEmpty()) {
      options.put("key.format", FLINK_FORMATS.get(format("key.format")));
      registryOptions(options, "key", format("key.format"), schemaIds);
      if (!"upsert".equals(mode)) {
        options.put("key.fields", String.join(";", key));
      }
    }
    options.put("sink.delivery-guarantee", "exactly-once");
    options.put("sink.transactional-id-prefix", transactionalIdPrefix);
    options.put("properties.transaction.timeout.ms", String.valueOf(transactionTimeout.toMillis()));
    String primaryKey =
        "upsert".equals(mode)
            ? ",\n  PRIMARY KEY ("
                + key.stream().map(Printer::identifier).collect(Collectors.joining(", "))
                + ") NOT ENFORCED"
            : "";
    return temporaryTable(SINK, writtenColumns(), primaryKey, options);
  }

  /** {@code CREATE TEMPORARY TABLE name (columns[constraint]) WITH (options)}, for a job's sink. */
  static String temporaryTable(
      String name, List<FlinkSql.Column> columns, String constraint, Map<String, String> options) {
    return "CREATE TEMPORARY TABLE "
        + name
        + " (\n  "
        + columns.stream()
            .map(
                c ->
                    Printer.identifier(c.name())
                        + " "
                        + c.type()
                        + (c.nullable() ? "" : " NOT NULL"))
            .collect(Collectors.joining(",\n  "))
        + constraint
        + "\n) WITH (\n  "
        + options.entrySet().stream()
            .map(e -> Printer.string(e.getKey()) + " = " + Printer.string(e.getValue()))
            .collect(Collectors.joining(",\n  "))
        + "\n)";
  }

  /**
   * The Confluent framing (magic byte 0, the 4-byte schema id, the record): the job writes under
   * the subject we register, with exactly the schema we register, which the format checks against
   * the row type it writes when the job starts (Flink's avro-confluent, and ours for JSON).
   */
  private void registryOptions(
      Map<String, String> options, String part, String format, Map<String, Integer> schemaIds) {
    String flinkFormat = ALL_FLINK_FORMATS.get(format);
    if ("raw".equals(flinkFormat)) {
      return;
    }
    Subject subject =
        subjects().stream()
            .filter(s -> s.name().equals(topicName + "-" + part))
            .findFirst()
            .orElseThrow();
    options.put(part + "." + flinkFormat + ".url", registryUrl);
    options.put(part + "." + flinkFormat + ".subject", subject.name());
    options.put(part + "." + flinkFormat + ".schema", subject.schema().text());
    Integer id = schemaIds.get(subject.name());
    if (id != null && ID_TAKING_FORMATS.contains(flinkFormat)) {
      options.put(part + "." + flinkFormat + ".schema-id", String.valueOf(id));
    }
  }

  /** The Flink format for a registry format option, or an error naming what is supported. */
  String format(String option) {
    String format = effective.options().getOrDefault(option, "json-registry");
    if (!FLINK_FORMATS.containsKey(format)) {
      throw new IllegalArgumentException(
          "'"
              + option
              + "' = '"
              + format
              + "' is not supported by this Flink cluster; use one of "
              + Set.copyOf(FLINK_FORMATS.keySet()));
    }
    return format;
  }

  private static Optional<String> optional(Map<String, String> options, String key) {
    return Optional.ofNullable(options.get(key));
  }

  private static String millis(String duration) {
    return duration.strip().equals("-1")
        ? "-1"
        : String.valueOf(TableOptions.duration(duration).orElseThrow().toMillis());
  }

  private static String bytes(String size) {
    return size.strip().equals("-1")
        ? "-1"
        : String.valueOf(TableOptions.memory(size).orElseThrow());
  }

  static long epochMillis(String timestamp) {
    String t = timestamp.strip();
    if (t.startsWith("'")) {
      t = t.substring(1, t.length() - 1);
    }
    if (t.matches("\\d+")) {
      return Long.parseLong(t);
    }
    String pattern =
        t.length() > 19
            ? "yyyy-MM-dd HH:mm:ss.SSS"
            : t.length() > 10 ? "yyyy-MM-dd HH:mm:ss" : "yyyy-MM-dd";
    if (pattern.equals("yyyy-MM-dd")) {
      return LocalDate.parse(t).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
    }
    return LocalDateTime.parse(t, DateTimeFormatter.ofPattern(pattern))
        .toInstant(ZoneOffset.UTC)
        .toEpochMilli();
  }
}
