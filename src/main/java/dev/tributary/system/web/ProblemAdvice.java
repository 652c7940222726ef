package dev.tributary.system.web;

import dev.tributary.adapter.DependencyProbe;
import dev.tributary.port.RemoteSystemException;
import dev.tributary.sql.Secrets;
import dev.tributary.sql.SqlException;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.tomcat.util.http.InvalidParameterException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.dao.OptimisticLockingFailureException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.web.ErrorResponse;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.MissingRequestHeaderException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Turns every failure into an RFC 9457 problem with a stable {@code code}. Expected failures are
 * not logged with a stack trace; only the unexpected ones are.
 */
@RestControllerAdvice
class ProblemAdvice extends ResponseEntityExceptionHandler {

  private static final Logger log = LoggerFactory.getLogger(ProblemAdvice.class);

  private final ObjectProvider<DependencyProbe> probe;

  ProblemAdvice(ObjectProvider<DependencyProbe> probe) {
    this.probe = probe;
  }

  @ExceptionHandler(ApiException.class)
  ProblemDetail handleApi(ApiException e) {
    ProblemDetail problem = problem(e.code(), e.getMessage());
    e.properties().forEach(problem::setProperty);
    retryAfter(e.code(), e.retryAfter());
    return problem;
  }

  /**
   * {@code Retry-After} on a 429 or 503, in whole seconds (at least 1): the wait the thrower gave,
   * else for a 503 the time until the dependencies are checked again.
   */
  void retryAfter(ErrorCode code, Duration given) {
    if (code.status() != 429 && code.status() != 503) {
      return;
    }
    Duration wait = given;
    if (wait == null) {
      DependencyProbe dependencies = probe.getIfAvailable();
      wait = dependencies == null ? Duration.ofSeconds(1) : dependencies.untilNextCheck();
    }
    long seconds = Math.max(1, (wait.toMillis() + 999) / 1000);
    if (RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes servlet
        && servlet.getResponse() != null
        && !servlet.getResponse().isCommitted()) {
      servlet.getResponse().setHeader(HttpHeaders.RETRY_AFTER, Long.toString(seconds));
    }
  }

  @ExceptionHandler(SqlException.class)
  ProblemDetail handleSql(SqlException e) {
    ProblemDetail problem = problem(e.code(), Secrets.redact(e.getMessage()));
    if (e.statementIndex() >= 0) {
      problem.setProperty("statementIndex", e.statementIndex());
    }
    problem.setProperty("line", e.line());
    problem.setProperty("column", e.column());
    if (e.expected() != null) {
      problem.setProperty("expected", e.expected());
    }
    if (!e.snippet().isEmpty()) {
      problem.setProperty(
          "snippet", Problems.cut(Secrets.redact(e.snippet()), Problems.MAX_DETAIL));
    }
    return problem;
  }

  /** Two writers raced for the same row or name; the loser may retry. */
  @ExceptionHandler({
    OptimisticLockingFailureException.class,
    DataIntegrityViolationException.class
  })
  ProblemDetail handleConflict(Exception e) {
    return problem(
        ErrorCode.CONFLICT, "The resource was changed concurrently; read it again and retry");
  }

  /** The metadata database cannot be reached: nothing was changed, and a retry can succeed. */
  @ExceptionHandler({
    CannotCreateTransactionException.class,
    DataAccessResourceFailureException.class
  })
  ProblemDetail handleDatabaseDown(Exception e) {
    return databaseUnavailable(e);
  }

  private ProblemDetail databaseUnavailable(Throwable e) {
    log.warn("The database is unavailable: {}", e.getMessage());
    ProblemDetail problem =
        problem(
            ErrorCode.DEPENDENCY_UNAVAILABLE,
            "The metadata database is unavailable; nothing was changed");
    problem.setProperty("system", "database");
    retryAfter(ErrorCode.DEPENDENCY_UNAVAILABLE, null);
    return problem;
  }

  /**
   * Whether {@code failure} comes from a database connection that broke or could not be had
   * (SQLSTATE class 08, a pool timeout): wherever it surfaced (a query, the rollback after it), the
   * request changed nothing and can be retried.
   */
  static boolean isDatabaseUnavailable(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof CannotCreateTransactionException
          || t instanceof SQLTransientConnectionException
          || t instanceof SQLException sql
              && sql.getSQLState() != null
              && sql.getSQLState().startsWith("08")) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  @Override
  protected ResponseEntity<Object> handleMethodArgumentNotValid(
      MethodArgumentNotValidException ex,
      HttpHeaders headers,
      HttpStatusCode status,
      WebRequest request) {
    String detail =
        ex.getBindingResult().getFieldErrors().stream()
            .map(f -> "'" + f.getField() + "' " + f.getDefaultMessage())
            .sorted()
            .collect(Collectors.joining("; "));
    ProblemDetail problem =
        problem(ErrorCode.VALIDATION_FAILED, detail.isEmpty() ? "Request is not valid" : detail);
    return super.handleExceptionInternal(ex, problem, headers, status, request);
  }

  @ExceptionHandler(RemoteSystemException.class)
  ProblemDetail handleRemote(RemoteSystemException e) {
    // Unreachable (worth retrying) is 503; a remote refusal is 502 and retrying will not help.
    ProblemDetail problem =
        problem(
            e.retryable() ? ErrorCode.DEPENDENCY_UNAVAILABLE : ErrorCode.REMOTE_ERROR,
            e.getMessage());
    problem.setProperty("system", e.system().name());
    if (e.retryable()) {
      retryAfter(ErrorCode.DEPENDENCY_UNAVAILABLE, null);
    }
    return problem;
  }

  @ExceptionHandler(Exception.class)
  ProblemDetail handleUnexpected(Exception e) {
    if (isDatabaseUnavailable(e)) {
      return databaseUnavailable(e);
    }
    if (e instanceof ErrorResponse known) {
      // A framework error that the handler above does not list: its status, our detail.
      return frameworkProblem(e, known.getStatusCode());
    }
    log.error("Unexpected error", e);
    return problem(ErrorCode.INTERNAL_ERROR, "An unexpected error occurred; see the service log.");
  }

  /**
   * Spring MVC's own errors (unreadable body, missing parameter, ...) keep their status, with a
   * detail of our own: the framework's messages name Java types and annotations.
   */
  @Override
  protected ResponseEntity<Object> handleExceptionInternal(
      Exception ex, Object body, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
    if (body instanceof ProblemDetail given
        && given.getProperties() != null
        && given.getProperties().containsKey("code")) {
      return super.handleExceptionInternal(ex, given, headers, status, request);
    }
    ProblemDetail problem = frameworkProblem(ex, status);
    return super.handleExceptionInternal(
        ex, problem, headers, HttpStatusCode.valueOf(problem.getStatus()), request);
  }

  static ProblemDetail frameworkProblem(Exception ex, HttpStatusCode status) {
    ErrorCode code =
        switch (status.value()) {
          case 404 -> ErrorCode.NOT_FOUND;
          case 405 -> ErrorCode.METHOD_NOT_ALLOWED;
          case 406 -> ErrorCode.NOT_ACCEPTABLE;
          case 413 -> ErrorCode.PAYLOAD_TOO_LARGE;
          case 415 -> ErrorCode.UNSUPPORTED_MEDIA_TYPE;
          default ->
              status.is4xxClientError()
                  ? ex instanceof HttpMessageNotReadableException
                      ? ErrorCode.MALFORMED_REQUEST
                      : ErrorCode.BAD_REQUEST
                  : ErrorCode.INTERNAL_ERROR;
        };
    String detail;
    for (Throwable t = ex; t != null; t = t.getCause()) {
      if (t instanceof ContentTypeFilter.BodyTooLarge large) {
        return ContentTypeFilter.tooLarge(-1, large.limit);
      }
    }
    if (ex instanceof HttpMessageNotReadableException unreadable
        && unreadable.getCause() == null
        && String.valueOf(unreadable.getMessage()).startsWith("Required request body")) {
      detail = "The request has no body; send one as JSON";
    } else if (ex instanceof HttpMessageNotReadableException) {
      detail = "The request body cannot be read: " + JsonProblems.describe(ex);
    } else if (ex instanceof MethodArgumentTypeMismatchException mismatch) {
      code = ErrorCode.VALIDATION_FAILED;
      Class<?> type = mismatch.getRequiredType();
      detail =
          "'"
              + mismatch.getName()
              + "' cannot be '"
              + mismatch.getValue()
              + "'"
              + (type != null && type.isEnum()
                  ? "; it is one of "
                      + Arrays.stream(type.getEnumConstants())
                          .map(String::valueOf)
                          .collect(Collectors.joining(", "))
                  : type != null && (Number.class.isAssignableFrom(type) || type.isPrimitive())
                      ? "; it is a number in range"
                      : type == UUID.class
                          ? "; it is a UUID"
                          : type == Instant.class ? "; it is an ISO-8601 instant" : "");
    } else if (ex instanceof MissingServletRequestParameterException missing) {
      code = ErrorCode.VALIDATION_FAILED;
      detail = "Parameter '" + missing.getParameterName() + "' is required";
    } else if (ex instanceof MissingRequestHeaderException missing) {
      code = ErrorCode.VALIDATION_FAILED;
      detail = "Header '" + missing.getHeaderName() + "' is required";
    } else if (ex instanceof HttpRequestMethodNotSupportedException method) {
      detail =
          method.getMethod()
              + " is not allowed here"
              + (method.getSupportedHttpMethods() == null
                  ? ""
                  : "; allowed: "
                      + method.getSupportedHttpMethods().stream()
                          .map(Object::toString)
                          .sorted()
                          .collect(Collectors.joining(", ")));
    } else if (ex instanceof HttpMediaTypeNotSupportedException) {
      detail = "Send the body as application/json";
    } else if (ex instanceof HttpMediaTypeNotAcceptableException) {
      detail = "The answer is application/json (errors application/problem+json)";
    } else if (status.value() == 404) {
      detail = "No such endpoint; see /v3/api-docs for the API";
    } else {
      detail =
          status.is4xxClientError() ? "The request is not valid" : "An unexpected error occurred";
    }
    ProblemDetail problem = problem(code, detail);
    problem.setStatus(status.value());
    return problem;
  }

  /** A query string that is not validly percent-encoded: Tomcat decodes it when first read. */
  @ExceptionHandler(InvalidParameterException.class)
  ProblemDetail handleParameters(InvalidParameterException e) {
    return problem(
        ErrorCode.BAD_REQUEST, "The query string is not validly percent-encoded (UTF-8)");
  }

  /** A Content-Type that cannot be parsed, or is a wildcard: 415 (Spring would answer 500). */
  @ExceptionHandler(InvalidMediaTypeException.class)
  ProblemDetail handleMediaType(InvalidMediaTypeException e) {
    return problem(
        ErrorCode.UNSUPPORTED_MEDIA_TYPE, "The Content-Type is not valid: send application/json");
  }

  /**
   * A problem for the current request's answer, whose Content-Type is set now: a problem is
   * application/problem+json whatever the Accept header asked for (Spring would otherwise answer an
   * empty body when Accept excludes JSON).
   */
  static ProblemDetail problem(ErrorCode code, String detail) {
    if (RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes servlet
        && servlet.getResponse() != null
        && !servlet.getResponse().isCommitted()) {
      servlet.getResponse().setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
    }
    return Problems.of(code, detail);
  }
}
