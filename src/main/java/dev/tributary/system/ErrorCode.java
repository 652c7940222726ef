package dev.tributary.system;

/**
 * Every error the API can answer with; the name is the stable {@code code} of a problem. Free of
 * framework types so that the statement language can raise them too.
 */
public enum ErrorCode {
  VALIDATION_FAILED(400, "Request is not valid"),
  MALFORMED_REQUEST(400, "Request body cannot be read"),
  BAD_REQUEST(400, "Request cannot be read"),
  SQL_SYNTAX_ERROR(400, "SQL syntax error"),
  STATEMENT_TOO_LARGE(400, "Statement too large"),
  UNSUPPORTED_STATEMENT(400, "Statement not supported"),
  INVALID_DEFINITION(400, "Invalid table definition"),
  INVALID_QUERY(400, "Invalid query"),
  UNKNOWN_OPTION(400, "Unknown option"),
  INVALID_OPTION_VALUE(400, "Invalid option value"),
  UNSUPPORTED_CLAUSE(400, "Clause not supported"),
  UNSUPPORTED_OPTION(400, "Option not supported"),
  UNAUTHORIZED(401, "Authentication required"),
  FORBIDDEN(403, "Permission denied"),
  CONNECTOR_NOT_ALLOWED(403, "Refused by the connector policy"),
  NOT_FOUND(404, "Resource not found"),
  METHOD_NOT_ALLOWED(405, "Method not allowed"),
  NOT_ACCEPTABLE(406, "No acceptable representation"),
  CONFLICT(409, "Resource conflict"),
  ALREADY_EXISTS(409, "Resource already exists"),
  PLAN_REJECTED(409, "The change cannot be applied safely"),
  PLAN_STALE(409, "The plan no longer matches the files or the database"),
  PRECONDITION_FAILED(412, "Precondition failed"),
  PAYLOAD_TOO_LARGE(413, "Request body too large"),
  UNSUPPORTED_MEDIA_TYPE(415, "Unsupported media type"),
  TOO_MANY_REQUESTS(429, "Too many scripts at once"),
  HTTP_VERSION_NOT_SUPPORTED(505, "HTTP version not supported"),
  REMOTE_ERROR(502, "A dependency refused the request"),
  DEPENDENCY_UNAVAILABLE(503, "A dependency is unavailable"),
  INTERNAL_ERROR(500, "Internal error");

  private final int status;
  private final String title;

  ErrorCode(int status, String title) {
    this.status = status;
    this.title = title;
  }

  public int status() {
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
