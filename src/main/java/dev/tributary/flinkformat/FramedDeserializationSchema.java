package dev.tributary.flinkformat;

import java.io.IOException;
import java.util.Arrays;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;

/** Checks the Confluent header (byte 0 and a schema id) and decodes what follows it. */
final class FramedDeserializationSchema implements DeserializationSchema<RowData> {

  private static final long serialVersionUID = 1L;

  private final DeserializationSchema<RowData> inner;

  FramedDeserializationSchema(DeserializationSchema<RowData> inner) {
    this.inner = inner;
  }

  @Override
  public void open(InitializationContext context) throws Exception {
    inner.open(context);
  }

  @Override
  public RowData deserialize(byte[] message) throws IOException {
    return message == null ? null : inner.deserialize(body(message));
  }

  @Override
  public void deserialize(byte[] message, Collector<RowData> out) throws IOException {
    if (message != null) {
      inner.deserialize(body(message), out);
    }
  }

  static byte[] body(byte[] message) throws IOException {
    if (message.length < 5 || message[0] != FramedSerializationSchema.MAGIC) {
      throw new IOException(
          "Not the Confluent wire format (byte 0, a 4-byte schema id, then the record): "
              + (message.length == 0
                  ? "an empty record"
                  : String.format("first byte 0x%02x of %d bytes", message[0], message.length)));
    }
    return Arrays.copyOfRange(message, 5, message.length);
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
