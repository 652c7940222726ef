package dev.tributary.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.port.FlinkSql;
import dev.tributary.system.Json;
import java.util.List;
import java.util.Map;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class SchemaDocumentsTest {

  // The type texts as Flink's DESCRIBE prints them.
  static final List<FlinkSql.Column> COLUMNS =
      List.of(
          new FlinkSql.Column("id", "BIGINT", false),
          new FlinkSql.Column("price", "DECIMAL(10, 2)", true),
          new FlinkSql.Column("at", "TIMESTAMP(3)", true),
          new FlinkSql.Column("tags", "ARRAY<INT>", true),
          new FlinkSql.Column("counts", "MAP<STRING, INT>", true),
          new FlinkSql.Column("address", "ROW<`city` STRING, `zip` INT NOT NULL>", true),
          new FlinkSql.Column("day", "DATE", true));

  @Test
  void shouldDeriveTheAvroSchemaAsFlinksFormatDoesWithEveryLogicalType() {
    Schema record = new Schema.Parser().parse(SchemaDocuments.avro("orders_value", COLUMNS));

    assertThat(record.getType()).isEqualTo(Schema.Type.RECORD);
    assertThat(record.getField("id").schema().getType()).isEqualTo(Schema.Type.LONG);
    Schema price = nonNull(record.getField("price").schema());
    assertThat(price.getType()).isEqualTo(Schema.Type.BYTES);
    assertThat(price.getLogicalType()).isEqualTo(LogicalTypes.decimal(10, 2));
    // Flink's avro-confluent format writes TIMESTAMP(3) as Avro's timestamp-millis.
    assertThat(nonNull(record.getField("at").schema()).getLogicalType())
        .isEqualTo(LogicalTypes.timestampMillis());
    Schema tags = nonNull(record.getField("tags").schema());
    assertThat(tags.getType()).isEqualTo(Schema.Type.ARRAY);
    assertThat(nonNull(tags.getElementType()).getType()).isEqualTo(Schema.Type.INT);
    Schema counts = nonNull(record.getField("counts").schema());
    assertThat(counts.getType()).isEqualTo(Schema.Type.MAP);
    assertThat(nonNull(counts.getValueType()).getType()).isEqualTo(Schema.Type.INT);
    Schema address = nonNull(record.getField("address").schema());
    assertThat(address.getType()).isEqualTo(Schema.Type.RECORD);
    assertThat(address.getField("zip").schema().getType()).isEqualTo(Schema.Type.INT);
    assertThat(nonNull(record.getField("day").schema()).getLogicalType())
        .isEqualTo(LogicalTypes.date());
  }

  @Test
  void shouldDeclareTheTypesThatAvroCarriesBack() {
    // What DESCRIBE prints for MAP['customer', customer_id] and a string literal.
    assertThat(
            SchemaDocuments.asAvroCarries(
                    new FlinkSql.Column("counts", "MAP<CHAR(8) NOT NULL, INT>", true))
                .type())
        .isEqualTo("MAP<STRING NOT NULL, INT>");
    assertThat(SchemaDocuments.asAvroCarries(new FlinkSql.Column("c", "CHAR(3)", false)))
        .isEqualTo(new FlinkSql.Column("c", "STRING", false));
    FlinkSql.Column decimal = new FlinkSql.Column("d", "DECIMAL(10, 2)", true);
    assertThat(SchemaDocuments.asAvroCarries(decimal).type()).isEqualTo("DECIMAL(10, 2)");
  }

  @Test
  void shouldNameTheColumnThatTheAvroFormatCannotWrite() {
    List<FlinkSql.Column> columns =
        List.of(
            new FlinkSql.Column("id", "BIGINT", false),
            new FlinkSql.Column("seen", "TIMESTAMP_LTZ(6)", true));

    assertThatThrownBy(() -> SchemaDocuments.avro("t_value", columns))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Column 'seen' is TIMESTAMP_LTZ(6), which Flink's avro-confluent")
        .hasMessageContaining("CAST it to TIMESTAMP(3)");
    assertThatThrownBy(
            () ->
                SchemaDocuments.avro(
                    "t_value", List.of(new FlinkSql.Column("micros", "TIMESTAMP(6)", true))))
        .hasMessageStartingWith("Column 'micros' is TIMESTAMP(6)");
    // JSON carries it: a string in Flink's SQL timestamp format.
    assertThat(SchemaDocuments.jsonSchema("t_value", columns)).contains("\"seen\"");
  }

  @Test
  void shouldDescribeNestedTypesInTheJsonSchema() {
    Map<?, ?> schema = Json.read(SchemaDocuments.jsonSchema("orders_value", COLUMNS), Map.class);
    Map<?, ?> properties = (Map<?, ?>) schema.get("properties");

    assertThat(schema.get("required")).isEqualTo(List.of("id"));
    assertThat(properties.get("id")).isEqualTo(Map.of("type", "integer"));
    assertThat(properties.get("price")).isEqualTo(Map.of("type", List.of("number", "null")));
    assertThat(((Map<?, ?>) properties.get("tags")).get("items"))
        .isEqualTo(Map.of("type", List.of("integer", "null")));
    assertThat(((Map<?, ?>) properties.get("counts")).get("additionalProperties"))
        .isEqualTo(Map.of("type", List.of("integer", "null")));
    Map<?, ?> address = (Map<?, ?>) properties.get("address");
    assertThat(address.get("required")).isEqualTo(List.of("zip"));
    assertThat(((Map<?, ?>) address.get("properties")).get("zip"))
        .isEqualTo(Map.of("type", "integer"));
  }

  private static Schema nonNull(Schema schema) {
    return schema.getType() == Schema.Type.UNION
        ? schema.getTypes().stream().filter(t -> t.getType() != Schema.Type.NULL).findFirst().get()
        : schema;
  }
}
