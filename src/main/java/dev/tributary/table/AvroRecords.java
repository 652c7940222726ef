package dev.tributary.table;

import dev.tributary.system.Json;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * One record in Avro binary, read by Avro's own {@link GenericDatumReader} against its writer
 * schema (the one the registry returns for the record's schema id), as the values a SELECT shows:
 * numbers (a DECIMAL exact, by its logical type), booleans and text; a date as {@code 2026-12-01},
 * a timestamp as {@code 2026-12-01 12:00:00.000} (as Flink's JSON format writes them, micros kept
 * when the type has them); bytes as base64; nested records, arrays and maps as JSON text. Used by
 * SELECT and by the preview.
 */
public final class AvroRecords {

  private static final DateTimeFormatter MILLIS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);
  private static final DateTimeFormatter MICROS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS").withZone(ZoneOffset.UTC);

  /** Avro's generic model with the logical types turned into Java values. */
  private static final GenericData MODEL = model();

  private final Schema schema;
  private final GenericDatumReader<Object> reader;

  /**
   * @param schemaText the writer schema, a JSON document whose top level is a record
   */
  public AvroRecords(String schemaText) {
    try {
      this.schema = new Schema.Parser().parse(schemaText);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("Not an Avro schema: " + e.getMessage(), e);
    }
    if (schema.getType() != Schema.Type.RECORD) {
      throw new IllegalArgumentException("Not an Avro record schema");
    }
    this.reader = new GenericDatumReader<>(schema, schema, MODEL);
  }

  /** The record's fields by name, in the schema's order. */
  public Map<String, Object> decode(byte[] bytes) {
    BinaryDecoder in = DecoderFactory.get().binaryDecoder(bytes, null);
    GenericRecord record;
    try {
      record = (GenericRecord) reader.read(null, in);
      if (!in.isEnd()) {
        throw new IllegalArgumentException(
            "bytes left after the record: not written with this schema");
      }
    } catch (IOException | RuntimeException e) {
      if (e instanceof IllegalArgumentException iae) {
        throw iae;
      }
      throw new IllegalArgumentException("not an Avro record of its schema: " + e.getMessage(), e);
    }
    Map<String, Object> row = new LinkedHashMap<>();
    for (Schema.Field field : schema.getFields()) {
      Object value = plain(record.get(field.pos()), field.schema());
      row.put(
          field.name(),
          value instanceof Map<?, ?> || value instanceof List<?> ? Json.write(value) : value);
    }
    return row;
  }

  /** A value as plain Java: maps, lists, numbers, booleans and text. */
  private static Object plain(Object value, Schema type) {
    if (value == null) {
      return null;
    }
    if (type.getType() == Schema.Type.UNION) {
      return plain(value, type.getTypes().get(MODEL.resolveUnion(type, value)));
    }
    if (value instanceof GenericRecord r) {
      Map<String, Object> fields = new LinkedHashMap<>();
      for (Schema.Field f : r.getSchema().getFields()) {
        fields.put(f.name(), plain(r.get(f.pos()), f.schema()));
      }
      return fields;
    }
    if (value instanceof List<?> items) {
      List<Object> list = new ArrayList<>();
      items.forEach(i -> list.add(plain(i, type.getElementType())));
      return list;
    }
    if (value instanceof Map<?, ?> entries) {
      Map<String, Object> map = new LinkedHashMap<>();
      entries.forEach((k, v) -> map.put(String.valueOf(k), plain(v, type.getValueType())));
      return map;
    }
    if (value instanceof Instant t) {
      return (micros(type) ? MICROS : MILLIS).format(t);
    }
    if (value instanceof LocalDateTime t) {
      return (micros(type) ? MICROS : MILLIS).format(t.toInstant(ZoneOffset.UTC));
    }
    if (value instanceof ByteBuffer b) {
      byte[] copy = new byte[b.remaining()];
      b.duplicate().get(copy);
      return Base64.getEncoder().encodeToString(copy);
    }
    if (value instanceof GenericFixed f) {
      return Base64.getEncoder().encodeToString(f.bytes());
    }
    if (value instanceof Float f) {
      return f.doubleValue();
    }
    if (value instanceof Number || value instanceof Boolean) {
      return value; // a DECIMAL arrives as BigDecimal, exact
    }
    return value.toString(); // text, dates, times, enum symbols
  }

  private static boolean micros(Schema type) {
    String logical = type.getLogicalType() == null ? "" : type.getLogicalType().getName();
    return logical.endsWith("-micros") || logical.endsWith("-nanos");
  }

  private static GenericData model() {
    GenericData model = new GenericData();
    model.addLogicalTypeConversion(new Conversions.DecimalConversion());
    model.addLogicalTypeConversion(new TimeConversions.DateConversion());
    model.addLogicalTypeConversion(new TimeConversions.TimeMillisConversion());
    model.addLogicalTypeConversion(new TimeConversions.TimeMicrosConversion());
    model.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
    model.addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
    model.addLogicalTypeConversion(new TimeConversions.LocalTimestampMillisConversion());
    model.addLogicalTypeConversion(new TimeConversions.LocalTimestampMicrosConversion());
    return model;
  }
}
