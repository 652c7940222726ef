package dev.tributary.system;

import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/** JSON for values kept in jsonb columns: one mapper, strict enough to fail loudly. */
public final class Json {

  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private Json() {}

  public static String write(Object value) {
    return MAPPER.writeValueAsString(value);
  }

  public static <T> T read(String json, Class<T> type) {
    return MAPPER.readValue(json, type);
  }

  public static <T> T read(String json, TypeReference<T> type) {
    return MAPPER.readValue(json, type);
  }
}
