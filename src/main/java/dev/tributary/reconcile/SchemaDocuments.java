package dev.tributary.reconcile;

import dev.tributary.reconcile.port.FlinkSql;
import dev.tributary.reconcile.port.SchemaRegistry;
import dev.tributary.system.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Registry schemas (JSON Schema or Avro) for a list of Flink columns. */
final class SchemaDocuments {

  private SchemaDocuments() {}

  static SchemaRegistry.Schema of(String format, String recordName, List<FlinkSql.Column> columns) {
    return "avro-registry".equals(format)
        ? new SchemaRegistry.Schema(SchemaRegistry.SchemaType.AVRO, avro(recordName, columns))
        : new SchemaRegistry.Schema(
            SchemaRegistry.SchemaType.JSON, jsonSchema(recordName, columns));
  }

  /**
   * The JSON Schema of what a retract table writes: Flink's debezium-json envelope, the row before
   * and after the change (either null) and the operation ({@code c} for an insert or the new row of
   * an update, {@code d} for a delete or the old row of an update).
   */
  static SchemaRegistry.Schema debeziumEnvelope(String title, List<FlinkSql.Column> columns) {
    Map<String, Object> row = new LinkedHashMap<>(Json.read(jsonSchema(title, columns), Map.class));
    row.remove("$schema");
    row.remove("title");
    Map<String, Object> nullableRow = Map.of("oneOf", List.of(Map.of("type", "null"), row));
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("before", nullableRow);
    properties.put("after", nullableRow);
    properties.put("op", Map.of("type", "string", "enum", List.of("c", "u", "d", "r")));
    Map<String, Object> schema = new LinkedHashMap<>();
    schema.put("$schema", "http://json-schema.org/draft-07/schema#");
    schema.put("title", title);
    schema.put("type", "object");
    schema.put("properties", properties);
    schema.put("required", List.of("op"));
    schema.put("additionalProperties", false);
    return new SchemaRegistry.Schema(SchemaRegistry.SchemaType.JSON, Json.write(schema));
  }

  static String jsonSchema(String title, List<FlinkSql.Column> columns) {
    Map<String, Object> properties = new LinkedHashMap<>();
    List<String> required = new ArrayList<>();
    for (FlinkSql.Column c : columns) {
      Map<String, Object> type = new LinkedHashMap<>(jsonType(c.type()));
      if (c.nullable()) {
        type.put("type", List.of(type.get("type"), "null"));
      } else {
        required.add(c.name());
      }
      properties.put(c.name(), type);
    }
    Map<String, Object> schema = new LinkedHashMap<>();
    schema.put("$schema", "http://json-schema.org/draft-07/schema#");
    schema.put("title", title);
    schema.put("type", "object");
    schema.put("properties", properties);
    schema.put("required", required);
    // A closed content model: the record has exactly these properties. Adding a nullable column
    // is then a compatible change under BACKWARD, and dropping one is not (old records have it).
    schema.put("additionalProperties", false);
    return Json.write(schema);
  }

  static String avro(String name, List<FlinkSql.Column> columns) {
    List<Map<String, Object>> fields = new ArrayList<>();
    for (FlinkSql.Column c : columns) {
      Object type = avroType(c.type());
      Map<String, Object> field = new LinkedHashMap<>();
      field.put("name", c.name());
      if (c.nullable()) {
        field.put("type", List.of("null", type));
        field.put("default", null);
      } else {
        field.put("type", type);
      }
      fields.add(field);
    }
    Map<String, Object> record = new LinkedHashMap<>();
    record.put("type", "record");
    record.put("name", name.replaceAll("[^A-Za-z0-9_]", "_").replaceFirst("^([0-9])", "_$1"));
    record.put("namespace", "dev.tributary");
    record.put("fields", fields);
    return Json.write(record);
  }

  private static Map<String, Object> jsonType(String flinkType) {
    String t = base(flinkType);
    return switch (t) {
      case "BOOLEAN" -> Map.of("type", "boolean");
      case "TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT" -> Map.of("type", "integer");
      case "FLOAT", "DOUBLE", "DECIMAL", "NUMERIC", "DEC" -> Map.of("type", "number");
      case "ARRAY", "MULTISET" -> Map.of("type", "array");
      case "MAP", "ROW" -> Map.of("type", "object");
      case "DATE" -> Map.of("type", "string", "format", "date");
      default -> Map.of("type", "string");
    };
  }

  private static Object avroType(String flinkType) {
    return switch (base(flinkType)) {
      case "BOOLEAN" -> "boolean";
      case "TINYINT", "SMALLINT", "INT", "INTEGER" -> "int";
      case "BIGINT" -> "long";
      case "FLOAT" -> "float";
      case "DOUBLE" -> "double";
      case "BYTES", "BINARY", "VARBINARY" -> "bytes";
      case "DATE" -> Map.of("type", "int", "logicalType", "date");
      case "TIMESTAMP", "TIMESTAMP_LTZ" ->
          Map.of("type", "long", "logicalType", "timestamp-millis");
      default -> "string";
    };
  }

  /**
   * The type name without parameters: DECIMAL(10, 2) -> DECIMAL; TIMESTAMP(3) WITH LOCAL... kept
   * apart.
   */
  static String base(String flinkType) {
    String t = flinkType.toUpperCase(Locale.ROOT).strip();
    if (t.contains("WITH LOCAL TIME ZONE")) {
      return "TIMESTAMP_LTZ";
    }
    int cut = t.length();
    for (char stop : new char[] {'(', '<', ' '}) {
      int at = t.indexOf(stop);
      if (at >= 0) {
        cut = Math.min(cut, at);
      }
    }
    return t.substring(0, cut);
  }
}
