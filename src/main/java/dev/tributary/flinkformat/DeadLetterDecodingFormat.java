package dev.tributary.flinkformat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.utils.DataTypeUtils;

/**
 * The guarded format with {@code mode = log}: another format's decoding, plus two readable metadata
 * columns, {@code error} (why the record could not be read) and {@code raw} (its bytes). A record
 * the inner format reads comes out as that format makes it, with both null; one it cannot read
 * comes out as a row whose physical columns are null and whose {@code error} and {@code raw} are
 * set. The job splits the two with a filter on {@code error}: its table reads the first, its
 * dead-letter table the second (see PipelinePlan). Flink's formats have no such mode, which is why
 * this is written here.
 */
final class DeadLetterDecodingFormat implements DecodingFormat<DeserializationSchema<RowData>> {

  static final String ERROR = "error";
  static final String RAW = "raw";

  private final DecodingFormat<DeserializationSchema<RowData>> inner;
  private List<String> keys = List.of();

  DeadLetterDecodingFormat(DecodingFormat<DeserializationSchema<RowData>> inner) {
    this.inner = inner;
  }

  @Override
  public Map<String, DataType> listReadableMetadata() {
    Map<String, DataType> all = new LinkedHashMap<>(inner.listReadableMetadata());
    all.put(ERROR, DataTypes.STRING().nullable());
    all.put(RAW, DataTypes.BYTES().nullable());
    return all;
  }

  @Override
  public void applyReadableMetadata(List<String> metadataKeys) {
    keys = List.copyOf(metadataKeys);
    List<String> innerKeys = new ArrayList<>();
    for (String key : metadataKeys) {
      if (!key.equals(ERROR) && !key.equals(RAW)) {
        innerKeys.add(key);
      }
    }
    if (!innerKeys.isEmpty() || !inner.listReadableMetadata().isEmpty()) {
      inner.applyReadableMetadata(innerKeys);
    }
  }

  @Override
  public DeserializationSchema<RowData> createRuntimeDecoder(
      DynamicTableSource.Context context, DataType physicalType) {
    Map<String, DataType> readable = listReadableMetadata();
    int physical = DataType.getFieldCount(physicalType);
    // Where each requested metadata column comes from: -1 error, -2 raw, else the inner row's field
    // (the inner format appends its own metadata after the physical columns, in request order).
    int[] sources = new int[keys.size()];
    List<DataType> types = new ArrayList<>();
    List<String> names = new ArrayList<>();
    int next = physical;
    for (int i = 0; i < keys.size(); i++) {
      String key = keys.get(i);
      sources[i] = key.equals(ERROR) ? -1 : key.equals(RAW) ? -2 : next++;
      names.add(key);
      types.add(readable.get(key));
    }
    DataType produced =
        DataTypeUtils.appendRowFields(
            physicalType,
            IntStream.range(0, names.size())
                .mapToObj(i -> DataTypes.FIELD(names.get(i), types.get(i)))
                .toList());
    return new DeadLetterDeserializationSchema(
        inner.createRuntimeDecoder(context, physicalType),
        physical,
        sources,
        context.createTypeInformation(produced));
  }

  @Override
  public ChangelogMode getChangelogMode() {
    return inner.getChangelogMode();
  }
}
