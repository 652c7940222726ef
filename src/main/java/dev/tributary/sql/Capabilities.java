package dev.tributary.sql;

import dev.tributary.system.ErrorCode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the product can carry out. The grammar accepts everything the seeds document; a clause or
 * option that would be stored and then do nothing (or fail later in the reconciler) is refused
 * here, when it is submitted. Each refusal names the clause it is about, so the parser can point at
 * it.
 */
public final class Capabilities {

  /** Kafka record metadata a materialized table's column can read (Flink's Kafka connector). */
  public static final Set<String> KAFKA_METADATA =
      Set.of(
          "topic", "partition", "offset", "timestamp", "timestamp-type", "headers", "leader-epoch");

  /** Why an option is refused whatever its value, by key. */
  private static final Map<String, String> UNSUPPORTED_OPTIONS =
      Map.of(
          "key.fields-prefix",
          "key columns are written under their own names; 'key.fields-prefix' is not supported",
          "key.format.schema-context",
          "subjects are registered in the default context as <topic>-key and <topic>-value;"
              + " schema contexts are not supported",
          "value.format.schema-context",
          "subjects are registered in the default context as <topic>-key and <topic>-value;"
              + " schema contexts are not supported",
          "scan.bounded.mode",
          "read options of the table's own topic are not supported; START_MODE says where the"
              + " job starts reading its sources",
          "scan.bounded.timestamp-millis",
          "read options of the table's own topic are not supported; START_MODE says where the"
              + " job starts reading its sources",
          "scan.startup.mode",
          "read options of the table's own topic are not supported; START_MODE says where the"
              + " job starts reading its sources");

  /** A clause the product cannot carry out. {@code clause} is a clause name or "option:key". */
  public record Refusal(String clause, ErrorCode code, String message) {}

  private Capabilities() {}

  /** An option refused for its key or value alone, whatever the rest of the definition says. */
  public static Optional<String> unsupportedOption(String key, String value) {
    if (UNSUPPORTED_OPTIONS.containsKey(key)) {
      return Optional.of(UNSUPPORTED_OPTIONS.get(key));
    }
    if ((key.equals("key.format") || key.equals("value.format"))
        && "proto-registry".equals(value)) {
      return Optional.of(
          "Protobuf is not supported: Flink has no Protobuf format for the Confluent wire format;"
              + " use 'json-registry' or 'avro-registry'");
    }
    if (key.equals("connector") && !Set.of("kafka", "confluent").contains(value)) {
      return Optional.of(
          "a materialized table is stored in its own Kafka topic; 'connector' can only be 'kafka'");
    }
    if (key.equals("refresh.incremental") && "true".equalsIgnoreCase(value.strip())) {
      return Optional.of(
          "an incremental refresh recomputes only what changed, which needs sources that track"
              + " their changes (Paimon); a Kafka topic does not, so every refresh of a FULL table"
              + " recomputes it (REFRESH PARTITION rewrites one partition). 'false' is accepted");
    }
    if (key.equals(DeadLetterTable.TARGET)) {
      String invalid = DeadLetterTable.invalidTarget(value);
      if (invalid != null) {
        return Optional.of(invalid);
      }
    }
    if (key.equals("value.fields-include") && !"all".equals(value)) {
      return Optional.of(
          "the value holds every column, key columns included; only 'all' is supported");
    }
    return Optional.empty();
  }

  /** The first clause of a statement that cannot be carried out, if any. */
  public static Optional<Refusal> refusal(Statement statement) {
    if (statement instanceof Statement.CreateMaterializedTable create) {
      return refusal(create.definition());
    }
    if (statement instanceof Statement.Explain explain) {
      return refusal(explain.statement());
    }
    if (statement instanceof Statement.AlterMaterializedTable alter) {
      Map<String, String> options = Map.of();
      if (alter.action() instanceof Statement.SetOptions set) {
        options = set.options();
      } else if (alter.action() instanceof Statement.Evolve evolve) {
        options = evolve.definition().options();
      }
      Optional<Refusal> option = options(options);
      if (option.isPresent()) {
        return option;
      }
      if (alter.action() instanceof Statement.Resume resume && !resume.options().isEmpty()) {
        return refuse(
            "RESUME WITH",
            ErrorCode.UNSUPPORTED_CLAUSE,
            "RESUME WITH (options) is not supported: change options with ALTER ... SET, then"
                + " RESUME");
      }
    }
    return Optional.empty();
  }

  /** The first clause of the definition that cannot be carried out, if any. */
  public static Optional<Refusal> refusal(MaterializedTableDefinition d) {
    Optional<Refusal> option = options(d.options());
    if (option.isPresent()) {
      return option;
    }
    Optional<Refusal> deadLetters = deadLetters(d);
    if (deadLetters.isPresent()) {
      return deadLetters;
    }
    if (d.distribution() != null
        && d.distribution().algorithm() == Clauses.Distribution.Algorithm.RANGE) {
      return refuse(
          "DISTRIBUTED",
          ErrorCode.UNSUPPORTED_CLAUSE,
          "DISTRIBUTED BY RANGE is not supported: Kafka assigns records to partitions by a hash"
              + " of the key; use DISTRIBUTED BY HASH(...) or DISTRIBUTED BY (...)");
    }
    Optional<Refusal> full = refreshMode(d);
    if (full.isPresent()) {
      return full;
    }
    Optional<Refusal> columns = columns(d.schema());
    if (columns.isPresent()) {
      return columns;
    }
    return keyAndChangelog(d);
  }

  /**
   * What each refresh mode needs. A FULL table is rewritten by bounded refresh jobs into a
   * compacted topic keyed by its primary key (declared, or the one Flink derives from the query),
   * so that a key that leaves the result can be deleted with a tombstone; PARTITIONED BY selects
   * what a refresh rewrites. A continuous job has no use for partitions or refresh options.
   */
  private static Optional<Refusal> refreshMode(MaterializedTableDefinition d) {
    Clauses.RefreshMode mode = Defaults.refreshMode(d.refreshMode(), d.freshness());
    String why = Defaults.refreshModeReason(d);
    for (String key : d.options().keySet()) {
      Optional<String> column = TableOptions.dateFormatterColumn(key);
      if (column.isPresent() && !d.partitionedBy().contains(column.get())) {
        return refuse(
            "option:" + key,
            ErrorCode.INVALID_DEFINITION,
            "Option '"
                + key
                + "' formats partition column '"
                + column.get()
                + "', which is not in PARTITIONED BY "
                + d.partitionedBy());
      }
    }
    if (mode != Clauses.RefreshMode.FULL) {
      if (!d.partitionedBy().isEmpty()) {
        return refuse(
            "PARTITIONED BY",
            ErrorCode.UNSUPPORTED_CLAUSE,
            "PARTITIONED BY selects what a FULL refresh rewrites (REFRESH PARTITION); this table"
                + " is CONTINUOUS ("
                + why
                + "), and a continuous table's topic is partitioned by DISTRIBUTED BY. Use"
                + " REFRESH_MODE = FULL, or leave PARTITIONED BY out");
      }
      for (String key : List.of("refresh.on-create", "refresh.time-zone")) {
        if (d.options().containsKey(key)) {
          return refuse(
              "option:" + key,
              ErrorCode.INVALID_DEFINITION,
              "Option '"
                  + key
                  + "' applies to FULL refreshes; this table is CONTINUOUS ("
                  + why
                  + ")");
        }
      }
      return Optional.empty();
    }
    if (d.startMode() != null) {
      return refuse(
          "START_MODE",
          ErrorCode.UNSUPPORTED_CLAUSE,
          "START_MODE says where a continuous job starts reading; this table is FULL ("
              + why
              + "), and each refresh reads its sources from their beginning up to the offsets"
              + " taken when it starts. Leave START_MODE out");
    }
    String changelog = d.options().get("changelog.mode");
    if (changelog != null && !changelog.equals("upsert")) {
      return refuse(
          "option:changelog.mode",
          ErrorCode.INVALID_DEFINITION,
          "A FULL table ("
              + why
              + ") is an upsert table: each refresh writes the query's result by key and deletes"
              + " keys that left it; 'changelog.mode' = '"
              + changelog
              + "' cannot be refreshed. Leave 'changelog.mode' out or use CONTINUOUS");
    }
    String cleanup = d.options().get("kafka.cleanup-policy");
    if (cleanup != null && !cleanup.equals("compact")) {
      return refuse(
          "option:kafka.cleanup-policy",
          ErrorCode.INVALID_DEFINITION,
          "A FULL table's topic is compacted, so that reading it gives the result of the last"
              + " refresh; 'kafka.cleanup-policy' = '"
              + cleanup
              + "' would delete current rows or keep replaced ones. Leave it out");
    }
    MaterializedTableDefinition keyed = Defaults.withDerivedKey(d);
    if (keyed.schema() == null || keyed.schema().primaryKey() == null) {
      return refuse(
          d.refreshMode() == Clauses.RefreshMode.FULL ? "REFRESH MODE" : "FRESHNESS",
          ErrorCode.INVALID_DEFINITION,
          "A FULL table ("
              + why
              + ") needs a key: a refresh rewrites the table in a compacted topic by key and"
              + " deletes keys that left the result, and Flink derives no key for this query"
              + " (the GROUP BY columns of an aggregation are one, when all are selected)."
              + " Declare PRIMARY KEY (...) NOT ENFORCED");
    }
    return Optional.empty();
  }

  /**
   * A dead-letter table is written by a continuous job beside the table's own rows; a FULL table's
   * refreshes do not write one yet, and a target without 'log' would be stored to do nothing.
   */
  private static Optional<Refusal> deadLetters(MaterializedTableDefinition d) {
    boolean logs = DeadLetterTable.logs(d.options());
    if (!logs && d.options().containsKey(DeadLetterTable.TARGET)) {
      return refuse(
          "option:" + DeadLetterTable.TARGET,
          ErrorCode.INVALID_DEFINITION,
          "Option '"
              + DeadLetterTable.TARGET
              + "' names the dead-letter table of 'error-handling.mode' = 'log'; this table's mode"
              + " is '"
              + d.options().getOrDefault(DeadLetterTable.MODE, "fail")
              + "'");
    }
    if (logs && Defaults.refreshMode(d.refreshMode(), d.freshness()) == Clauses.RefreshMode.FULL) {
      return refuse(
          "option:" + DeadLetterTable.MODE,
          ErrorCode.UNSUPPORTED_OPTION,
          "'error-handling.mode' = 'log' is refused for a FULL table ("
              + Defaults.refreshModeReason(d)
              + "): its refreshes do not write a dead-letter table yet; use 'fail' or 'ignore',"
              + " or REFRESH_MODE = CONTINUOUS");
    }
    return Optional.empty();
  }

  private static Optional<Refusal> options(Map<String, String> options) {
    for (Map.Entry<String, String> option : options.entrySet()) {
      Optional<String> why = unsupportedOption(option.getKey(), option.getValue());
      if (why.isPresent()) {
        return refuse(
            "option:" + option.getKey(),
            ErrorCode.UNSUPPORTED_OPTION,
            "Option '"
                + option.getKey()
                + "' = '"
                + option.getValue()
                + "' is refused: "
                + why.get());
      }
    }
    return Optional.empty();
  }

  private static Optional<Refusal> columns(TableSchema schema) {
    if (schema == null) {
      return Optional.empty();
    }
    for (Column c : schema.columns()) {
      if (c.kind() != Column.Kind.METADATA) {
        continue;
      }
      String key = c.metadataKey() != null ? c.metadataKey() : c.name();
      if (!KAFKA_METADATA.contains(key)) {
        return refuse(
            "column:" + c.name(),
            ErrorCode.INVALID_DEFINITION,
            "Column '"
                + c.name()
                + "' reads metadata '"
                + key
                + "', which a Kafka record does not have; use one of "
                + String.join(", ", new TreeSet<>(KAFKA_METADATA)));
      }
      if (!c.virtual()) {
        return refuse(
            "column:" + c.name(),
            ErrorCode.UNSUPPORTED_CLAUSE,
            "Metadata column '"
                + c.name()
                + "' must be VIRTUAL: it is read from each record of the topic; writing record"
                + " metadata from the query is not supported");
      }
    }
    return Optional.empty();
  }

  private static Optional<Refusal> keyAndChangelog(MaterializedTableDefinition d) {
    d = Defaults.withDerivedKey(d);
    List<String> primaryKey =
        d.schema() != null && d.schema().primaryKey() != null
            ? d.schema().primaryKey().columns()
            : List.of();
    List<String> distribution = d.distribution() == null ? List.of() : d.distribution().columns();
    String mode = d.options().get("changelog.mode");
    String cleanup = d.options().get("kafka.cleanup-policy");
    boolean keyed = !primaryKey.isEmpty() || !distribution.isEmpty();
    if ("upsert".equals(mode) && primaryKey.isEmpty()) {
      return refuse(
          "option:changelog.mode",
          ErrorCode.INVALID_DEFINITION,
          "'changelog.mode' = 'upsert' needs a primary key, and Flink derives none for this"
              + " query (only the GROUP BY columns of an aggregation, when selected, are one):"
              + " declare PRIMARY KEY (...) NOT ENFORCED");
    }
    boolean compacted = "compact".equals(cleanup) || "delete-compact".equals(cleanup);
    if (compacted && !keyed) {
      return refuse(
          "option:kafka.cleanup-policy",
          ErrorCode.INVALID_DEFINITION,
          "'kafka.cleanup-policy' = '"
              + cleanup
              + "' needs a key: compaction keeps the latest record per key, and this table writes"
              + " records without one. Declare a PRIMARY KEY or DISTRIBUTED BY (...)");
    }
    if (compacted && "retract".equals(mode)) {
      return refuse(
          "option:kafka.cleanup-policy",
          ErrorCode.INVALID_DEFINITION,
          "A retract table cannot be compacted: compaction would drop the retractions that"
              + " readers need. Use 'changelog.mode' = 'upsert' or cleanup policy 'delete'");
    }
    if ("retract".equals(mode) && "avro-registry".equals(d.options().get("value.format"))) {
      return refuse(
          "option:value.format",
          ErrorCode.UNSUPPORTED_OPTION,
          "A retract table writes Debezium JSON envelopes (before, after, op), registered as a"
              + " JSON Schema of that envelope; 'value.format' = 'avro-registry' cannot be combined"
              + " with 'changelog.mode' = 'retract' here. Use 'json-registry', or 'upsert' with a"
              + " key");
    }
    boolean upsert = "upsert".equals(mode) || (mode == null && !primaryKey.isEmpty());
    if (upsert
        && !distribution.isEmpty()
        && !Set.copyOf(distribution).equals(Set.copyOf(primaryKey))) {
      return refuse(
          "DISTRIBUTED",
          ErrorCode.INVALID_DEFINITION,
          "An upsert table is keyed and partitioned by its primary key "
              + primaryKey
              + "; DISTRIBUTED BY "
              + distribution
              + " cannot be honoured. Distribute by the primary key or leave DISTRIBUTED BY out");
    }
    return Optional.empty();
  }

  private static Optional<Refusal> refuse(String clause, ErrorCode code, String message) {
    return Optional.of(new Refusal(clause, code, message));
  }
}
