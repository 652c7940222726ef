package dev.tributary.system;

import java.util.Locale;

/**
 * Every error the API can answer with; the name is the stable {@code code} of a problem. Free of
 * framework types so that the statement language can raise them too.
 */
public enum ErrorCode {
  VALIDATION_FAILED(
      400,
      "Request is not valid",
      "A parameter, header or field of the request has a value the endpoint does not take; the detail names it.",
      "Correct the named value and send the request again."),
  MALFORMED_REQUEST(
      400,
      "Request body cannot be read",
      "The body is not JSON, or a field has the wrong JSON type; the detail says where.",
      "Send a JSON body of the shape the OpenAPI document gives for this operation."),
  BAD_REQUEST(
      400,
      "Request cannot be read",
      "The request itself is malformed: its query string, path or headers cannot be decoded.",
      "Percent-encode the query string as UTF-8 and check the path."),
  SQL_SYNTAX_ERROR(
      400,
      "SQL syntax error",
      "A statement does not parse. line and column point at the first token that does not fit; statementIndex says which statement of the script.",
      "Fix the statement at the given position; a reserved word used as a name needs backticks."),
  STATEMENT_TOO_LARGE(
      400,
      "Statement too large",
      "A statement passes one of the limits on its size: tokens, nesting, a name, an option. The detail names the limit.",
      "Split the statement or shorten the named part."),
  UNSUPPORTED_STATEMENT(
      400,
      "Statement not supported",
      "The statement is valid Flink SQL, but not one this service runs.",
      "See docs/statements.md for the statements it runs."),
  INVALID_DEFINITION(
      400,
      "Invalid table definition",
      "The table's definition contradicts itself or what the service can carry out: a key that is not a column, a format that cannot hold the changelog, a FRESHNESS that is out of range.",
      "Change the definition as the detail says; nothing was stored."),
  INVALID_QUERY(
      400,
      "Invalid query",
      "Flink's planner refused the AS query: an unknown table or column, a type mismatch, or a construct the refresh mode cannot run.",
      "Fix the query; the detail is Flink's own message."),
  UNKNOWN_OPTION(
      400,
      "Unknown option",
      "A WITH option is not one that the connector, format or service knows.",
      "Check the option's spelling; the detail lists the close matches."),
  INVALID_OPTION_VALUE(
      400,
      "Invalid option value",
      "A WITH option has a value of the wrong type or outside its range.",
      "Give a value of the type the detail names."),
  UNSUPPORTED_CLAUSE(
      400,
      "Clause not supported",
      "A clause parses but cannot be carried out here; it would be stored to do nothing.",
      "Remove the clause, or see the detail for what to use instead."),
  UNSUPPORTED_OPTION(
      400,
      "Option not supported",
      "An option is valid Flink but cannot be carried out by this service.",
      "Remove the option."),
  UNAUTHORIZED(
      401,
      "Authentication required",
      "The request carries no credential, or one that is unknown, revoked or expired.",
      "Send an API key or an OAuth2 token as Authorization: Bearer <token>."),
  FORBIDDEN(
      403,
      "Permission denied",
      "The caller's grants do not cover this action on this resource; permission names what is needed.",
      "Ask an admin of the catalog or database for the named permission."),
  CONNECTOR_NOT_ALLOWED(
      403,
      "Refused by the connector policy",
      "The catalog's connector policy does not allow this connector, option or URL.",
      "Use an allowed connector, or ask the catalog's admin to change its policy."),
  NOT_FOUND(
      404,
      "Resource not found",
      "The catalog, database, table, version or other resource named in the path does not exist, or the caller may not see it.",
      "Check the name; list the parent resource to see what exists."),
  METHOD_NOT_ALLOWED(
      405,
      "Method not allowed",
      "The path exists but not with this HTTP method; the detail lists the allowed ones.",
      "Use one of the allowed methods."),
  NOT_ACCEPTABLE(
      406,
      "No acceptable representation",
      "The Accept header excludes every media type the operation answers with.",
      "Accept application/json (and application/problem+json for errors)."),
  CONFLICT(
      409,
      "Resource conflict",
      "The resource changed while the request ran, or is in a state that does not allow the request (a refresh of a table that is suspended, a resourceVersion that is stale).",
      "Read the resource again, then retry with its current resourceVersion."),
  ALREADY_EXISTS(
      409,
      "Resource already exists",
      "A CREATE names a table, flow or key that exists.",
      "Use CREATE OR ALTER, CREATE ... IF NOT EXISTS, or another name."),
  PLAN_REJECTED(
      409,
      "The change cannot be applied safely",
      "The change plan would lose or repeat rows, or break a downstream table; the plan and its warnings are in the problem.",
      "Change the definition as the plan's warnings say, or accept the named consequence explicitly."),
  POOL_FULL(
      409,
      "The compute pool has no room for the job",
      "The table's job needs more task slots than its compute pool has free: the cluster's own free slots, or what is left of the pool's maxSlots once the jobs of Tributary there are counted. The problem names the pool, its free slots and the slots the job needs.",
      "Place the table on another pool (WITH ('compute-pool' = '...')), raise the pool's maxSlots, or stop or drop a table on it."),
  QUOTA_EXCEEDED(
      409,
      "The database's quota on the compute pool does not allow it",
      "The change would give the database more tables on a compute pool, or more of its task slots, than the database's quota there allows. The problem names the quota, the use and the request.",
      "Drop or move a table of the database off the pool, or ask an admin of the catalog to raise the quota (PUT .../databases/{database}/quotas/{pool})."),
  PLAN_STALE(
      409,
      "The plan no longer matches the files or the database",
      "The plan being applied was made against definitions that changed since.",
      "Make the plan again and apply the new one."),
  PRECONDITION_FAILED(
      412,
      "Precondition failed",
      "The If-Match header names a resourceVersion that is no longer current.",
      "GET the resource, then send its ETag as If-Match."),
  PAYLOAD_TOO_LARGE(
      413,
      "Request body too large",
      "The body is larger than tributary.limits.max-request-bytes; limit gives the bytes allowed.",
      "Send a smaller body, or split the script."),
  UNSUPPORTED_MEDIA_TYPE(
      415,
      "Unsupported media type",
      "The body's Content-Type is not one the operation reads.",
      "Send application/json."),
  TOO_MANY_REQUESTS(
      429,
      "Too many requests at once",
      "Every slot for this kind of request was taken: the slots for running scripts for the whole wait, or those for requests waiting on a refresh to end.",
      "Retry after the number of seconds in the Retry-After header."),
  HTTP_VERSION_NOT_SUPPORTED(
      505,
      "HTTP version not supported",
      "The request used an HTTP version the server does not speak.",
      "Use HTTP/1.1 or HTTP/2."),
  REMOTE_ERROR(
      502,
      "A dependency refused the request",
      "Kafka, the schema registry or Flink answered with an error that retrying will not change; system names it and the detail is its message.",
      "Act on the dependency's message; the request itself was not carried out."),
  DEPENDENCY_UNAVAILABLE(
      503,
      "A dependency is unavailable",
      "Kafka, the schema registry or Flink did not answer, or has no capacity now; system names it.",
      "Retry after the number of seconds in the Retry-After header: the service checks its dependencies again by then."),
  INTERNAL_ERROR(
      500,
      "Internal error",
      "The service failed in a way it did not expect. Nothing half-done is left; the service log has the cause under the request's X-Request-Id.",
      "Report it with the X-Request-Id of the answer.");

  private final int status;
  private final String title;
  private final String meaning;
  private final String remedy;

  ErrorCode(int status, String title, String meaning, String remedy) {
    this.status = status;
    this.title = title;
    this.meaning = meaning;
    this.remedy = remedy;
  }

  public int status() {
    return status;
  }

  public String title() {
    return title;
  }

  /** What the problem means, for its page under {@code /problems}. */
  public String meaning() {
    return meaning;
  }

  /** What the caller can do about it. */
  public String remedy() {
    return remedy;
  }

  /** The code as it appears in the problem {@code type}: {@code sql-syntax-error}. */
  public String slug() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * The problem {@code type}, stable across releases: a URI reference relative to the service,
   * which serves a page for it (RFC 9457 section 3.1.1), so it resolves wherever the service runs.
   */
  public String type() {
    return "/problems/" + slug();
  }

  /** The code whose {@link #slug()} this is, or null. */
  public static ErrorCode ofSlug(String slug) {
    for (ErrorCode code : values()) {
      if (code.slug().equals(slug)) {
        return code;
      }
    }
    return null;
  }
}
