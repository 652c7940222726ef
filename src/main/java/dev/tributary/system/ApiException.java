package dev.tributary.system;

import java.time.Duration;
import java.util.Map;

/** An expected failure of a request, answered as a problem with its {@link ErrorCode}. */
public class ApiException extends RuntimeException {

  private final ErrorCode code;
  private final Map<String, Object> properties;
  private Duration retryAfter;

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

  /**
   * How long the caller should wait before trying again, answered as {@code Retry-After} (429 and
   * 503); null when the service cannot say.
   */
  public ApiException retryAfter(Duration wait) {
    this.retryAfter = wait;
    return this;
  }

  public Duration retryAfter() {
    return retryAfter;
  }

  /** Extra members of the problem document, e.g. line and column. */
  public Map<String, Object> properties() {
    return properties;
  }
}
