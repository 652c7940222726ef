package dev.tributary.system;

import java.util.Map;

/** An expected failure of a request, answered as a problem with its {@link ErrorCode}. */
public class ApiException extends RuntimeException {

  private final ErrorCode code;
  private final Map<String, Object> properties;

  public ApiException(ErrorCode code, String detail) {
    this(code, detail, Map.of());
  }

  public ApiException(ErrorCode code, String detail, Map<String, Object> properties) {
    super(detail);
    this.code = code;
    this.properties = Map.copyOf(properties);
  }

  public ErrorCode code() {
    return code;
  }

  /** Extra members of the problem document, e.g. line and column. */
  public Map<String, Object> properties() {
    return properties;
  }
}
