package dev.tributary.system;

import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * JSON for values kept in jsonb columns. Unknown properties are ignored on read, so that rows
 * written by a newer version of the service still load.
 */
public final class Json {

  private static final JsonMapper MAPPER =
      JsonMapper.builder()
          .disable(tools.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
          .build();

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
