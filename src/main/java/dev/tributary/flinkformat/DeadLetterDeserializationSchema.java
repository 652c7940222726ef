package dev.tributary.flinkformat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * Decodes with the inner format and appends the requested metadata; a record the inner format
 * cannot read becomes a row of nulls with its error and bytes (see DeadLetterDecodingFormat). Rows
 * are {@link GenericRowData}, as the Kafka connector requires of a value format.
 */
final class DeadLetterDeserializationSchema implements DeserializationSchema<RowData> {

  private static final long serialVersionUID = 1L;

  /** The counter, in {@link GuardedDeserializationSchema#METRIC_GROUP}, of rows sent aside. */
  static final String COUNTER = "logged";

  private final DeserializationSchema<RowData> inner;
  private final int physical;
  private final int[] sources;
  private final TypeInformation<RowData> produced;
  private transient Counter logged;

  DeadLetterDeserializationSchema(
      DeserializationSchema<RowData> inner,
      int physical,
      int[] sources,
      TypeInformation<RowData> produced) {
    this.inner = inner;
    this.physical = physical;
    this.sources = sources.clone();
    this.produced = produced;
  }

  @Override
  public void open(InitializationContext context) throws Exception {
    inner.open(context);
    logged =
        context
            .getMetricGroup()
            .addGroup(GuardedDeserializationSchema.METRIC_GROUP)
            .counter(COUNTER);
  }

  @Override
  public RowData deserialize(byte[] message) throws IOException {
    throw new UnsupportedOperationException("read through deserialize(byte[], Collector)");
  }

  @Override
  public void deserialize(byte[] message, Collector<RowData> out) throws IOException {
    List<RowData> rows = new ArrayList<>(1);
    try {
      inner.deserialize(
          message,
          new Collector<>() {
            @Override
            public void collect(RowData row) {
              rows.add(row);
            }

            @Override
            public void close() {}
          });
    } catch (IOException | RuntimeException e) {
      logged.inc();
      out.collect(unreadable(message, e));
      return;
    }
    for (RowData row : rows) {
      out.collect(extended((GenericRowData) row));
    }
  }

  private GenericRowData extended(GenericRowData row) {
    GenericRowData result = new GenericRowData(row.getRowKind(), physical + sources.length);
    for (int i = 0; i < physical; i++) {
      result.setField(i, row.getField(i));
    }
    for (int i = 0; i < sources.length; i++) {
      if (sources[i] >= 0) {
        result.setField(physical + i, row.getField(sources[i]));
      }
    }
    return result;
  }

  private GenericRowData unreadable(byte[] message, Exception e) {
    GenericRowData result = new GenericRowData(RowKind.INSERT, physical + sources.length);
    String error = e.getClass().getSimpleName() + ": " + e.getMessage();
    for (int i = 0; i < sources.length; i++) {
      if (sources[i] == -1) {
        result.setField(physical + i, StringData.fromString(error));
      } else if (sources[i] == -2) {
        result.setField(physical + i, message);
      }
    }
    return result;
  }

  @Override
  public boolean isEndOfStream(RowData next) {
    return false;
  }

  @Override
  public TypeInformation<RowData> getProducedType() {
    return produced;
  }
}
