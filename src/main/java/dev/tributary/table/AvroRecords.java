package dev.tributary.table;

import dev.tributary.system.Json;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Avro binary decoding of one record, driven by its writer schema (the one the registry returns for
 * the record's schema id), into the values a SELECT shows: numbers, booleans and text; a date as
 * {@code 2026-12-01}, a timestamp as {@code 2026-12-01 12:00:00.000} (as Flink's JSON format writes
 * them); nested records, arrays and maps as JSON text. Used by SELECT and by the preview.
 */
public final class AvroRecords {

  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

  private final Object schema;

  /**
   * @param schemaText the writer schema, a JSON document whose top level is a record
   */
  public AvroRecords(String schemaText) {
    this.schema = Json.read(schemaText, Object.class);
    if (!(schema instanceof Map<?, ?> m) || !"record".equals(m.get("type"))) {
      throw new IllegalArgumentException("Not an Avro record schema");
    }
  }

  /** The record's fields by name, in the schema's order. */
  @SuppressWarnings("unchecked")
  public Map<String, Object> decode(byte[] bytes) {
    Cursor in = new Cursor(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN));
    Map<String, Object> row = (Map<String, Object>) value(schema, in, false);
    if (in.buffer.hasRemaining()) {
      throw new IllegalArgumentException(
          in.buffer.remaining() + " bytes left after the record: not written with this schema");
    }
    return row;
  }

  /** One value of {@code type}; {@code nested} values are shown as JSON text, not flattened. */
  private Object value(Object type, Cursor in, boolean nested) {
    if (type instanceof List<?> union) {
      int branch = (int) in.varLong();
      if (branch < 0 || branch >= union.size()) {
        throw new IllegalArgumentException("Union branch " + branch + " of " + union);
      }
      return value(union.get(branch), in, nested);
    }
    if (type instanceof String name) {
      return primitive(name, null, in);
    }
    Map<?, ?> complex = (Map<?, ?>) type;
    String kind = String.valueOf(complex.get("type"));
    Object logical = complex.get("logicalType");
    switch (kind) {
      case "record" -> {
        Map<String, Object> fields = new LinkedHashMap<>();
        for (Object f : (List<?>) complex.get("fields")) {
          Map<?, ?> field = (Map<?, ?>) f;
          fields.put(String.valueOf(field.get("name")), value(field.get("type"), in, true));
        }
        return nested ? Json.write(fields) : fields;
      }
      case "array" -> {
        List<Object> items = new ArrayList<>();
        for (long n = in.blockCount(); n != 0; n = in.blockCount()) {
          for (long i = 0; i < n; i++) {
            items.add(value(complex.get("items"), in, true));
          }
        }
        return Json.write(items);
      }
      case "map" -> {
        Map<String, Object> entries = new LinkedHashMap<>();
        for (long n = in.blockCount(); n != 0; n = in.blockCount()) {
          for (long i = 0; i < n; i++) {
            entries.put(in.string(), value(complex.get("values"), in, true));
          }
        }
        return Json.write(entries);
      }
      case "enum" -> {
        return String.valueOf(((List<?>) complex.get("symbols")).get((int) in.varLong()));
      }
      case "fixed" -> {
        byte[] b = new byte[((Number) complex.get("size")).intValue()];
        in.buffer.get(b);
        return Base64.getEncoder().encodeToString(b);
      }
      default -> {
        return primitive(kind, logical == null ? null : String.valueOf(logical), in);
      }
    }
  }

  private static Object primitive(String name, String logical, Cursor in) {
    return switch (name) {
      case "null" -> null;
      case "boolean" -> in.buffer.get() != 0;
      case "int" -> {
        int v = (int) in.varLong();
        yield "date".equals(logical) ? LocalDate.ofEpochDay(v).toString() : v;
      }
      case "long" -> {
        long v = in.varLong();
        yield switch (logical == null ? "" : logical) {
          case "timestamp-millis", "local-timestamp-millis" ->
              TIMESTAMP.format(Instant.ofEpochMilli(v));
          case "timestamp-micros", "local-timestamp-micros" ->
              TIMESTAMP.format(Instant.EPOCH.plusNanos(v * 1000));
          default -> v;
        };
      }
      case "float" -> (double) in.buffer.getFloat();
      case "double" -> in.buffer.getDouble();
      case "string" -> in.string();
      case "bytes" -> Base64.getEncoder().encodeToString(in.bytes());
      default -> throw new IllegalArgumentException("Unknown Avro type " + name);
    };
  }

  private record Cursor(ByteBuffer buffer) {

    /** A zig-zag variable-length long, as Avro writes int and long. */
    long varLong() {
      long raw = 0;
      int shift = 0;
      byte b;
      do {
        if (shift > 63) {
          throw new IllegalArgumentException("Malformed variable-length number");
        }
        b = buffer.get();
        raw |= (long) (b & 0x7f) << shift;
        shift += 7;
      } while ((b & 0x80) != 0);
      return (raw >>> 1) ^ -(raw & 1);
    }

    /** The item count of the next block (a negative count is followed by the block's size). */
    long blockCount() {
      long n = varLong();
      if (n < 0) {
        varLong();
        n = -n;
      }
      return n;
    }

    byte[] bytes() {
      byte[] b = new byte[(int) varLong()];
      buffer.get(b);
      return b;
    }

    String string() {
      return new String(bytes(), StandardCharsets.UTF_8);
    }
  }
}
