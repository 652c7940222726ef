package dev.tributary.table;

import dev.tributary.port.SchemaRegistry;
import dev.tributary.port.Topics;
import dev.tributary.system.Json;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Record keys and values decoded as they were written: JSON (with or without the Confluent header),
 * or Avro in the Confluent wire format, by the writer schema the record's id names (fetched from
 * the registry once per id). One instance per read; it remembers the schemas it fetched.
 */
public final class RecordValues {

  private final SchemaRegistry registry;
  private final Map<Integer, Optional<AvroRecords>> avro = new HashMap<>();

  public RecordValues(SchemaRegistry registry) {
    this.registry = registry;
  }

  /**
   * A JSON object or Avro record as a map of its fields; other JSON as its value; text that is not
   * JSON as the text; null for null.
   *
   * @throws IllegalArgumentException if an Avro record does not match its writer schema, or the
   *     registry has no schema of its id
   */
  public Object decode(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    var id = Topics.TopicRecord.schemaIdOf(bytes);
    if (id.isPresent()) {
      Optional<AvroRecords> decoder =
          avro.computeIfAbsent(
              id.getAsInt(),
              i -> {
                SchemaRegistry.Schema schema =
                    registry
                        .byId(i)
                        .orElseThrow(
                            () -> new IllegalArgumentException("the registry has no schema " + i));
                return schema.type() == SchemaRegistry.SchemaType.AVRO
                    ? Optional.of(new AvroRecords(schema.text()))
                    : Optional.empty();
              });
      if (decoder.isPresent()) {
        return decoder.get().decode(Topics.TopicRecord.bodyOf(bytes));
      }
    }
    String text = new String(Topics.TopicRecord.bodyOf(bytes), StandardCharsets.UTF_8);
    try {
      return Json.read(text, Object.class);
    } catch (RuntimeException e) {
      return text;
    }
  }
}
