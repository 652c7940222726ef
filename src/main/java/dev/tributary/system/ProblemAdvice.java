package dev.tributary.system;

import dev.tributary.reconcile.port.RemoteSystemException;
import dev.tributary.sql.SqlException;
import java.net.URI;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Turns every failure into an RFC 9457 problem with a stable {@code code}. Expected failures are
 * not logged with a stack trace; only the unexpected ones are.
 */
@RestControllerAdvice
class ProblemAdvice extends ResponseEntityExceptionHandler {

  private static final Logger log = LoggerFactory.getLogger(ProblemAdvice.class);

  @ExceptionHandler(ApiException.class)
  ProblemDetail handleApi(ApiException e) {
    ProblemDetail problem = problem(e.code(), e.getMessage());
    e.properties().forEach(problem::setProperty);
    return problem;
  }

  @ExceptionHandler(SqlException.class)
  ProblemDetail handleSql(SqlException e) {
    ProblemDetail problem = problem(e.code(), e.getMessage());
    if (e.statementIndex() >= 0) {
      problem.setProperty("statementIndex", e.statementIndex());
    }
    problem.setProperty("line", e.line());
    problem.setProperty("column", e.column());
    if (e.expected() != null) {
      problem.setProperty("expected", e.expected());
    }
    if (!e.snippet().isEmpty()) {
      problem.setProperty("snippet", e.snippet());
    }
    return problem;
  }

  /** Two writers raced for the same row or name; the loser may retry. */
  @ExceptionHandler({
    org.springframework.dao.OptimisticLockingFailureException.class,
    org.springframework.dao.DataIntegrityViolationException.class
  })
  ProblemDetail handleConflict(Exception e) {
    return problem(
        ErrorCode.CONFLICT, "The resource was changed concurrently; read it again and retry");
  }

  @Override
  protected ResponseEntity<Object> handleMethodArgumentNotValid(
      org.springframework.web.bind.MethodArgumentNotValidException ex,
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
    return problem;
  }

  @ExceptionHandler(Exception.class)
  ProblemDetail handleUnexpected(Exception e) {
    log.error("Unexpected error", e);
    return problem(ErrorCode.INTERNAL_ERROR, "An unexpected error occurred; see the service log.");
  }

  /** Spring MVC's own errors (unreadable body, missing parameter, ...) keep their status. */
  @Override
  protected ResponseEntity<Object> handleExceptionInternal(
      Exception ex, Object body, HttpHeaders headers, HttpStatusCode status, WebRequest request) {
    if (body instanceof ProblemDetail given
        && given.getProperties() != null
        && given.getProperties().containsKey("code")) {
      return super.handleExceptionInternal(ex, given, headers, status, request);
    }
    ErrorCode code =
        status.value() == 404
            ? ErrorCode.NOT_FOUND
            : status.is4xxClientError() ? ErrorCode.MALFORMED_REQUEST : ErrorCode.INTERNAL_ERROR;
    ProblemDetail problem = problem(code, ex.getMessage());
    problem.setStatus(status.value());
    return super.handleExceptionInternal(ex, problem, headers, status, request);
  }

  static ProblemDetail problem(ErrorCode code, String detail) {
    ProblemDetail problem =
        ProblemDetail.forStatusAndDetail(
            org.springframework.http.HttpStatusCode.valueOf(code.status()), detail);
    problem.setType(URI.create(code.type()));
    problem.setTitle(code.title());
    problem.setProperty("code", code.name());
    return problem;
  }
}
