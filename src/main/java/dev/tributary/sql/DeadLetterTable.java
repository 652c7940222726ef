package dev.tributary.sql;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The dead-letter table of {@code 'error-handling.mode' = 'log'}, as in Confluent Cloud: named by
 * {@code 'error-handling.log.target'} (default {@code error_log}), resolved in the table's catalog
 * and database; several tables may share one. It is a Kafka table of fixed columns, registered in
 * the catalog like a source table, so other tables can read it. How a job fills it is in {@code
 * plan.DeadLetters}.
 */
public final class DeadLetterTable {

  public static final String MODE = "error-handling.mode";
  public static final String TARGET = "error-handling.log.target";

  /** Confluent's default dead-letter table. */
  public static final String DEFAULT_TARGET = "error_log";

  /**
   * Its columns. {@code key} holds the record's key bytes when the source reads no key format (the
   * job then reads the key raw); a source with a key format of its own leaves it null.
   */
  private static final TableSchema SCHEMA =
      new TableSchema(
          List.of(
              Column.physical("error_time", "TIMESTAMP_LTZ(3)", true, null),
              Column.physical("error_message", "STRING", true, null),
              Column.physical("table_name", "STRING", true, null),
              Column.physical("source_table", "STRING", true, null),
              Column.physical("topic", "STRING", true, null),
              Column.physical("partition", "INT", true, null),
              Column.physical("offset", "BIGINT", true, null),
              Column.physical("record_time", "TIMESTAMP_LTZ(3)", false, null),
              Column.physical("key", "BYTES", false, null),
              Column.physical("value", "BYTES", false, null)),
          null,
          null,
          List.of());

  private DeadLetterTable() {}

  /** True when the table sends unreadable source records to a dead-letter table. */
  public static boolean logs(Map<String, String> options) {
    return "log".equals(options.get(MODE));
  }

  /** The dead-letter table of {@code table}, qualified in its catalog and database. */
  public static ObjectName target(ObjectName table, Map<String, String> options) {
    String[] parts = options.getOrDefault(TARGET, DEFAULT_TARGET).strip().split("\\.", -1);
    ObjectName written =
        switch (parts.length) {
          case 1 -> ObjectName.of(parts[0]);
          case 2 -> new ObjectName(null, parts[0], parts[1]);
          default -> new ObjectName(parts[0], parts[1], parts[2]);
        };
    return written.resolve(table.catalog(), table.database());
  }

  /** Why {@code name} cannot name a dead-letter table, or null when it can. */
  public static String invalidTarget(String name) {
    String[] parts = name.strip().split("\\.", -1);
    if (parts.length > 3) {
      return "'" + TARGET + "' is [catalog.][database.]table, not '" + name + "'";
    }
    for (String part : parts) {
      if (part.isBlank()) {
        return "'" + TARGET + "' has an empty name part: '" + name + "'";
      }
    }
    return null;
  }

  /** The columns a dead-letter table has. */
  public static TableSchema schema() {
    return SCHEMA;
  }

  /** True when a registered table has a dead-letter table's columns, so it can take the rows. */
  public static boolean hasItsColumns(TableSchema schema) {
    if (schema == null || schema.columns().size() != SCHEMA.columns().size()) {
      return false;
    }
    for (int i = 0; i < SCHEMA.columns().size(); i++) {
      Column have = schema.columns().get(i);
      Column want = SCHEMA.columns().get(i);
      if (have.kind() != Column.Kind.PHYSICAL
          || !have.name().equals(want.name())
          || have.type() == null
          || !normal(have.type()).equals(normal(want.type()))) {
        return false;
      }
    }
    return true;
  }

  private static String normal(String type) {
    String t = type.toUpperCase(Locale.ROOT).replaceAll("\\s+", " ").strip();
    return switch (t) {
      case "VARCHAR(2147483647)" -> "STRING";
      case "VARBINARY(2147483647)" -> "BYTES";
      case "INTEGER" -> "INT";
      case "TIMESTAMP(3) WITH LOCAL TIME ZONE" -> "TIMESTAMP_LTZ(3)";
      default -> t;
    };
  }

  /** Its options as a Kafka table others read (committed records only, from the start). */
  public static Map<String, String> options(
      String topic, String bootstrapServers, String registryUrl) {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("connector", "kafka");
    options.put("topic", topic);
    options.put("properties.bootstrap.servers", bootstrapServers);
    options.put("properties.isolation.level", "read_committed");
    options.put("scan.startup.mode", "earliest-offset");
    options.put("value.format", "json-confluent");
    options.put("value.json-confluent.url", registryUrl);
    return options;
  }
}
