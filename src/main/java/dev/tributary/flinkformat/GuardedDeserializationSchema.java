package dev.tributary.flinkformat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;

/** Decodes with the inner format; a record it cannot decode is skipped and counted, or fails. */
final class GuardedDeserializationSchema implements DeserializationSchema<RowData> {

  private static final long serialVersionUID = 1L;

  /** The start of the failure's message when {@code mode = fail}. */
  static final String MARKER = "DESERIALIZATION_ERROR";

  /** The metric group of the counter {@code skipped}. */
  static final String METRIC_GROUP = "tributary_error_handling";

  private final DeserializationSchema<RowData> inner;
  private final boolean skip;
  private transient Counter skipped;

  GuardedDeserializationSchema(DeserializationSchema<RowData> inner, boolean skip) {
    this.inner = inner;
    this.skip = skip;
  }

  @Override
  public void open(InitializationContext context) throws Exception {
    inner.open(context);
    skipped = context.getMetricGroup().addGroup(METRIC_GROUP).counter("skipped");
  }

  @Override
  public RowData deserialize(byte[] message) throws IOException {
    try {
      return inner.deserialize(message);
    } catch (IOException | RuntimeException e) {
      unreadable(message, e);
      return null;
    }
  }

  @Override
  public void deserialize(byte[] message, Collector<RowData> out) throws IOException {
    try {
      inner.deserialize(message, out);
    } catch (IOException | RuntimeException e) {
      unreadable(message, e);
    }
  }

  private void unreadable(byte[] message, Exception e) throws IOException {
    if (skip) {
      skipped.inc();
      return;
    }
    String text =
        message == null
            ? "(null)"
            : new String(message, 0, Math.min(message.length, 200), StandardCharsets.UTF_8);
    throw new IOException(
        MARKER
            + ": a source record cannot be read ('error-handling.mode' = 'fail'): "
            + e.getMessage()
            + "; record: "
            + text); // not chained: the control plane reports a failure's deepest cause
  }

  @Override
  public boolean isEndOfStream(RowData next) {
    return false;
  }

  @Override
  public TypeInformation<RowData> getProducedType() {
    return inner.getProducedType();
  }
}
