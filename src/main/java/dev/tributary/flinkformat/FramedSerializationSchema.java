package dev.tributary.flinkformat;

import java.nio.ByteBuffer;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.RowType;

/**
 * The inner format's bytes behind the Confluent header: byte 0, then the schema id as 4 big-endian
 * bytes. The id is the registry's for {@code schema} under {@code subject}: the one the submitter
 * resolved, else resolved once when the writer opens. A schema whose properties are not the row's
 * fields, or whose required properties are not its NOT NULL fields, fails the job there, instead of
 * labelling records with a schema they do not match.
 */
final class FramedSerializationSchema implements SerializationSchema<RowData> {

  private static final long serialVersionUID = 1L;
  static final byte MAGIC = 0;

  private final SerializationSchema<RowData> inner;
  private final RowType rowType;
  private final boolean envelope;
  private final String url;
  private final String subject;
  private final String schema;
  private final Integer schemaId;
  private transient int id;

  FramedSerializationSchema(
      SerializationSchema<RowData> inner,
      RowType rowType,
      boolean envelope,
      String url,
      String subject,
      String schema,
      Integer schemaId) {
    this.inner = inner;
    this.rowType = rowType;
    this.envelope = envelope;
    this.url = url;
    this.subject = subject;
    this.schema = schema;
    this.schemaId = schemaId;
  }

  @Override
  public void open(InitializationContext context) throws Exception {
    inner.open(context);
    requireSchemaOfRow(schema, rowType, envelope);
    id = schemaId != null ? schemaId : new SchemaIds(url).idOf(subject, schema);
  }

  @Override
  public byte[] serialize(RowData row) {
    byte[] body = inner.serialize(row);
    return body == null
        ? null
        : ByteBuffer.allocate(5 + body.length).put(MAGIC).putInt(id).put(body).array();
  }

  /**
   * The schema describes exactly this row: one property per field, required iff NOT NULL. For an
   * envelope, the row is the object alternative of its {@code after} property.
   */
  static void requireSchemaOfRow(String schema, RowType rowType, boolean envelope)
      throws Exception {
    JsonNode row = new ObjectMapper().readTree(schema);
    if (envelope) {
      JsonNode after = row;
      row = null;
      for (JsonNode alternative : after.path("properties").path("after").path("oneOf")) {
        if ("object".equals(alternative.path("type").asText())) {
          row = alternative;
        }
      }
      if (row == null) {
        throw new IllegalStateException(
            "The JSON Schema is not a change envelope: no object alternative for 'after'");
      }
    }
    Set<String> properties = new TreeSet<>();
    row.path("properties").fieldNames().forEachRemaining(properties::add);
    Set<String> required = new TreeSet<>();
    row.path("required").forEach(r -> required.add(r.asText()));
    Set<String> fields = new TreeSet<>(rowType.getFieldNames());
    Set<String> notNull = new TreeSet<>();
    rowType.getFields().stream()
        .filter(f -> !f.getType().isNullable())
        .forEach(f -> notNull.add(f.getName()));
    if (!properties.equals(fields) || !required.equals(notNull)) {
      throw new IllegalStateException(
          "The JSON Schema does not describe the rows written: its properties "
              + properties
              + " (required "
              + required
              + "), the row's fields "
              + fields
              + " (NOT NULL "
              + notNull
              + ")");
    }
  }
}
