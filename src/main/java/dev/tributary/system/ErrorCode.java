package dev.tributary.system;

import org.springframework.http.HttpStatus;

/** Every error the API can answer with; the name is the stable {@code code} of a problem. */
public enum ErrorCode {
  VALIDATION_FAILED(HttpStatus.BAD_REQUEST, "Request is not valid"),
  MALFORMED_REQUEST(HttpStatus.BAD_REQUEST, "Request body cannot be read"),
  NOT_FOUND(HttpStatus.NOT_FOUND, "Resource not found"),
  CONFLICT(HttpStatus.CONFLICT, "Resource conflict"),
  DEPENDENCY_UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE, "A dependency is unavailable"),
  INTERNAL_ERROR(HttpStatus.INTERNAL_SERVER_ERROR, "Internal error");

  private final HttpStatus status;
  private final String title;

  ErrorCode(HttpStatus status, String title) {
    this.status = status;
    this.title = title;
  }

  public HttpStatus status() {
    return status;
  }

  public String title() {
    return title;
  }

  /** The problem {@code type} URI, stable across releases. */
  public String type() {
    return "https://tributary.dev/problems/" + name().toLowerCase().replace('_', '-');
  }
}
