package dev.tributary.flinkformat;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.formats.common.TimestampFormat;
import org.apache.flink.formats.json.JsonRowDataDeserializationSchema;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.util.Collector;
import org.apache.flink.util.UserCodeClassLoader;
import org.junit.jupiter.api.Test;

/** The log mode of the guarded format over Flink's own JSON format. */
class DeadLetterDeserializationSchemaTest {

  private static final RowType PHYSICAL =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.STRING()),
                  DataTypes.FIELD("amount", DataTypes.DOUBLE()))
              .getLogicalType();

  private static final RowType PRODUCED =
      (RowType)
          DataTypes.ROW(
                  DataTypes.FIELD("id", DataTypes.STRING()),
                  DataTypes.FIELD("amount", DataTypes.DOUBLE()),
                  DataTypes.FIELD("raw", DataTypes.BYTES()),
                  DataTypes.FIELD("error", DataTypes.STRING()))
              .getLogicalType();

  private final DeadLetterDeserializationSchema schema =
      new DeadLetterDeserializationSchema(
          new JsonRowDataDeserializationSchema(
              PHYSICAL, InternalTypeInfo.of(PHYSICAL), false, false, TimestampFormat.ISO_8601),
          2,
          new int[] {-2, -1},
          InternalTypeInfo.of(PRODUCED));

  @Test
  void shouldPassReadableRecordsWithNullMetadataAndKeepUnreadableOnesWithTheirErrorAndBytes()
      throws Exception {
    schema.open(context());

    List<RowData> rows = new ArrayList<>();
    Collector<RowData> out =
        new Collector<>() {
          @Override
          public void collect(RowData row) {
            rows.add(row);
          }

          @Override
          public void close() {}
        };
    schema.deserialize(bytes("{\"id\": \"a\", \"amount\": 1.5}"), out);
    schema.deserialize(bytes("not json {"), out);

    assertThat(rows).hasSize(2);
    GenericRowData good = (GenericRowData) rows.get(0);
    assertThat(good.getArity()).isEqualTo(4);
    assertThat(good.getString(0).toString()).isEqualTo("a");
    assertThat(good.getDouble(1)).isEqualTo(1.5);
    assertThat(good.isNullAt(2)).isTrue();
    assertThat(good.isNullAt(3)).isTrue();
    GenericRowData bad = (GenericRowData) rows.get(1);
    assertThat(bad.getArity()).isEqualTo(4);
    assertThat(bad.isNullAt(0)).isTrue();
    assertThat(bad.isNullAt(1)).isTrue();
    assertThat(new String(bad.getBinary(2), StandardCharsets.UTF_8)).isEqualTo("not json {");
    assertThat(bad.getString(3).toString()).contains("not json {");
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static DeserializationSchema.InitializationContext context() {
    return new DeserializationSchema.InitializationContext() {
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
