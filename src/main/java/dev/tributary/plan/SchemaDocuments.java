package dev.tributary.plan;

import dev.tributary.port.FlinkSql;
import dev.tributary.port.SchemaRegistry;
import dev.tributary.system.Json;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.MapType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeParser;

/**
 * Registry schemas (JSON Schema or Avro) for a list of Flink columns, from the column types parsed
 * by Flink's own type parser: Avro by Flink's own converter, JSON Schema by the mapping below
 * (Flink has no JSON Schema converter; the mapping follows what its JSON format writes).
 */
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
    Map<String, Object> schema = new LinkedHashMap<>(jsonType(rowType(columns)));
    schema.put("$schema", "http://json-schema.org/draft-07/schema#");
    schema.put("title", title);
    return Json.write(reorder(schema));
  }

  /** {@code $schema} and {@code title} first, as a reader expects them. */
  private static Map<String, Object> reorder(Map<String, Object> schema) {
    Map<String, Object> ordered = new LinkedHashMap<>();
    ordered.put("$schema", schema.remove("$schema"));
    ordered.put("title", schema.remove("title"));
    ordered.putAll(schema);
    return ordered;
  }

  /**
   * The Avro schema of the record, as Flink's {@code avro-confluent} format derives it from the
   * table's row type (flink-avro's {@code AvroSchemaConverter}): the format refuses to write with a
   * schema whose types differ from its own derivation, so the registered one is that derivation.
   * DECIMAL(p, s) is bytes with its decimal logical type, TIMESTAMP(p) and TIMESTAMP_LTZ(p) are
   * millis or micros by precision, ARRAY, MAP and ROW nest, nullable types are unions with null.
   *
   * <p>The converter is called reflectively: in the test JVM, where the cluster runs in-process,
   * the class is the copy inside Flink's shaded {@code flink-sql-avro-confluent-registry} jar (its
   * {@code Schema} is a relocated Avro class), elsewhere flink-avro's; both render the same JSON.
   */
  static String avro(String name, List<FlinkSql.Column> columns) {
    String recordName =
        "dev.tributary." + name.replaceAll("[^A-Za-z0-9_]", "_").replaceFirst("^([0-9])", "_$1");
    try {
      return convert(rowType(columns), recordName);
    } catch (IllegalArgumentException whole) {
      for (FlinkSql.Column c : columns) {
        try {
          convert(rowType(List.of(c)), recordName);
        } catch (IllegalArgumentException one) {
          throw new IllegalArgumentException(
              "Column '"
                  + c.name()
                  + "' is "
                  + c.type()
                  + ", which Flink's avro-confluent format cannot write ("
                  + one.getMessage()
                  + ")"
                  + (c.type().startsWith("TIMESTAMP")
                      ? "; CAST it to TIMESTAMP(3) (Avro's timestamp-millis, in UTC), or write"
                          + " the table as json-registry"
                      : "; CAST it to a type Avro carries, or write the table as json-registry"),
              one);
        }
      }
      throw whole;
    }
  }

  private static String convert(RowType row, String recordName) {
    try {
      return String.valueOf(AVRO_CONVERTER.invoke(null, row, recordName));
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      throw new IllegalArgumentException(
          cause.getMessage() == null ? "no Avro type for it" : cause.getMessage(), cause);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The column as Avro carries it: its type after a round trip through Flink's converters (to Avro
   * and back), which is what the avro-confluent format compares the registered schema with. CHAR(n)
   * and VARCHAR(n) become STRING, BINARY(n) BYTES, a MAP key STRING NOT NULL; the job's sink
   * declares these, and Flink casts the query's values into them.
   */
  static FlinkSql.Column asAvroCarries(FlinkSql.Column c) {
    String type =
        AVRO_CARRIED.computeIfAbsent(
            c.type(),
            text -> {
              LogicalType declared =
                  LogicalTypeParser.parse(text, SchemaDocuments.class.getClassLoader());
              RowType one = new RowType(false, List.of(new RowType.RowField("f", declared)));
              try {
                Object back = AVRO_TO_TYPE.invoke(null, convert(one, "dev.tributary.carried"));
                LogicalType row = ((DataType) back).getLogicalType();
                return ((RowType) row).getTypeAt(0).copy(true).asSummaryString();
              } catch (IllegalArgumentException | ReflectiveOperationException e) {
                return text; // not carried at all: the schema derivation says why
              }
            });
    return type.equals(c.type()) ? c : new FlinkSql.Column(c.name(), type, c.nullable());
  }

  private static final Map<String, String> AVRO_CARRIED = new ConcurrentHashMap<>();

  private static final Method AVRO_TO_TYPE = avroMethod("convertToDataType", String.class);

  private static final Method AVRO_CONVERTER = avroConverter();

  private static Method avroConverter() {
    return avroMethod("convertToSchema", LogicalType.class, String.class);
  }

  private static Method avroMethod(String name, Class<?>... parameters) {
    try {
      return Class.forName("org.apache.flink.formats.avro.typeutils.AvroSchemaConverter")
          .getMethod(name, parameters);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("flink-avro is missing from the classpath", e);
    }
  }

  /**
   * The columns as one Flink row type (NOT NULL, as a format sees the record), parsed from the type
   * texts Flink printed for them by Flink's own type parser.
   */
  static RowType rowType(List<FlinkSql.Column> columns) {
    List<RowType.RowField> fields = new ArrayList<>();
    for (FlinkSql.Column c : columns) {
      LogicalType type = LogicalTypeParser.parse(c.type(), SchemaDocuments.class.getClassLoader());
      fields.add(new RowType.RowField(c.name(), type.copy(c.nullable())));
    }
    return new RowType(false, fields);
  }

  /**
   * The JSON Schema of a value as Flink's JSON format writes it: numbers for the numeric types
   * (DECIMAL too), strings for text, temporal types (in the SQL formats Flink writes by default)
   * and bytes (base64), arrays with their item schema, maps as objects whose values share a schema
   * (Flink writes map keys as strings), rows as closed objects with every field, and null allowed
   * where the type is nullable.
   */
  static Map<String, Object> jsonType(LogicalType type) {
    Map<String, Object> schema = new LinkedHashMap<>();
    String base =
        switch (type.getTypeRoot()) {
          case BOOLEAN -> "boolean";
          case TINYINT, SMALLINT, INTEGER, BIGINT -> "integer";
          case FLOAT, DOUBLE, DECIMAL -> "number";
          case ARRAY -> "array";
          case MAP, MULTISET, ROW, STRUCTURED_TYPE -> "object";
          default -> "string";
        };
    schema.put("type", type.isNullable() ? List.of(base, "null") : base);
    switch (type.getTypeRoot()) {
      case DATE -> schema.put("format", "date");
      case TIME_WITHOUT_TIME_ZONE -> schema.put("format", "time");
      case BINARY, VARBINARY -> schema.put("contentEncoding", "base64");
      case ARRAY -> schema.put("items", jsonType(((ArrayType) type).getElementType()));
      case MAP -> schema.put("additionalProperties", jsonType(((MapType) type).getValueType()));
      case MULTISET -> schema.put("additionalProperties", Map.of("type", "integer"));
      case ROW -> {
        Map<String, Object> properties = new LinkedHashMap<>();
        List<String> required = new ArrayList<>();
        for (RowType.RowField f : ((RowType) type).getFields()) {
          properties.put(f.getName(), jsonType(f.getType()));
          if (!f.getType().isNullable()) {
            required.add(f.getName());
          }
        }
        schema.put("properties", properties);
        schema.put("required", required);
        // A closed content model: the record has exactly these properties. Adding a nullable
        // column is then a compatible change under BACKWARD, and dropping one is not.
        schema.put("additionalProperties", false);
      }
      default -> {}
    }
    return schema;
  }
}
