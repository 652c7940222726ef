package dev.tributary.flinkformat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonFormatOptions;
import org.apache.flink.formats.json.JsonRowDataSerializationSchema;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.UserCodeClassLoader;
import org.junit.jupiter.api.Test;

/** The writer's framing, with an id the submitter resolved. */
class FramedSerializationSchemaTest {

  private static final RowType ROW =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.STRING().notNull()),
                  DataTypes.FIELD("amount", DataTypes.DOUBLE()))
              .getLogicalType();

  private static final String SCHEMA =
      "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},"
          + "\"amount\":{\"type\":[\"number\",\"null\"]}},\"required\":[\"id\"]}";

  /** Nothing listens on port 9 here: a writer that asked the registry would fail to open. */
  private static final String NO_REGISTRY = "http://127.0.0.1:9";

  @Test
  void shouldFrameEveryRecordWithTheResolvedIdWithoutAskingTheRegistry() throws Exception {
    FramedSerializationSchema writer = writer(SCHEMA, 42);
    writer.open(context());

    byte[] record = writer.serialize(GenericRowData.of(StringData.fromString("o1"), 9.5));

    ByteBuffer header = ByteBuffer.wrap(record, 0, 5);
    assertThat(header.get()).isEqualTo(FramedSerializationSchema.MAGIC);
    assertThat(header.getInt()).isEqualTo(42);
    assertThat(new String(Arrays.copyOfRange(record, 5, record.length), StandardCharsets.UTF_8))
        .isEqualTo("{\"id\":\"o1\",\"amount\":9.5}");
  }

  @Test
  void shouldStillRefuseASchemaThatIsNotTheRowsWhenTheIdIsGiven() {
    String other = SCHEMA.replace("\"required\":[\"id\"]", "\"required\":[]");
    FramedSerializationSchema writer = writer(other, 42);

    assertThatThrownBy(() -> writer.open(context()))
        .hasMessageContaining("does not describe the rows written");
  }

  private static FramedSerializationSchema writer(String schema, Integer id) {
    return new FramedSerializationSchema(
        new JsonRowDataSerializationSchema(
            ROW,
            TimestampFormat.ISO_8601,
            JsonFormatOptions.MapNullKeyMode.FAIL,
            "null",
            false,
            false),
        ROW,
        false,
        NO_REGISTRY,
        "t-value",
        schema,
        id);
  }

  private static SerializationSchema.InitializationContext context() {
    return new SerializationSchema.InitializationContext() {
      @Override
      public MetricGroup getMetricGroup() {
        return new UnregisteredMetricsGroup();
      }

      @Override
      public UserCodeClassLoader getUserCodeClassLoader() {
        return null;
      }
    };
  }
}
