package dev.tributary.flinkformat;

import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;

/** Another format's decoding, with its runtime decoder wrapped; metadata and changelog are its. */
final class WrappedDecodingFormat implements DecodingFormat<DeserializationSchema<RowData>> {

  private final DecodingFormat<DeserializationSchema<RowData>> inner;
  private final UnaryOperator<DeserializationSchema<RowData>> wrap;

  WrappedDecodingFormat(
      DecodingFormat<DeserializationSchema<RowData>> inner,
      UnaryOperator<DeserializationSchema<RowData>> wrap) {
    this.inner = inner;
    this.wrap = wrap;
  }

  @Override
  public DeserializationSchema<RowData> createRuntimeDecoder(
      DynamicTableSource.Context source, DataType physicalType) {
    return wrap.apply(inner.createRuntimeDecoder(source, physicalType));
  }

  @Override
  public Map<String, DataType> listReadableMetadata() {
    return inner.listReadableMetadata();
  }

  @Override
  public void applyReadableMetadata(List<String> keys) {
    inner.applyReadableMetadata(keys);
  }

  @Override
  public ChangelogMode getChangelogMode() {
    return inner.getChangelogMode();
  }
}
