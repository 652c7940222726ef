package dev.tributary.system;

import dev.tributary.reconcile.port.RemoteSystemException;
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

  @ExceptionHandler(RemoteSystemException.class)
  ProblemDetail handleRemote(RemoteSystemException e) {
    ProblemDetail problem = problem(ErrorCode.DEPENDENCY_UNAVAILABLE, e.getMessage());
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
    ErrorCode code =
        status.value() == 404
            ? ErrorCode.NOT_FOUND
            : status.is4xxClientError() ? ErrorCode.MALFORMED_REQUEST : ErrorCode.INTERNAL_ERROR;
    ProblemDetail problem = problem(code, ex.getMessage());
    problem.setStatus(status.value());
    return super.handleExceptionInternal(ex, problem, headers, status, request);
  }

  static ProblemDetail problem(ErrorCode code, String detail) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(org.springframework.http.HttpStatusCode.valueOf(code.status()), detail);
    problem.setType(java.net.URI.create(code.type()));
    problem.setTitle(code.title());
    problem.setProperty("code", code.name());
    return problem;
  }
}
