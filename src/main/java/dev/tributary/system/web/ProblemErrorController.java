package dev.tributary.system.web;

import io.swagger.v3.oas.annotations.Hidden;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.ErrorResponse;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Errors that happen outside Spring MVC (the servlet container refusing a request, a filter's
 * sendError) are answered as problems too, never as an HTML page or the framework's own JSON.
 */
@RestController
@Hidden
class ProblemErrorController implements ErrorController {

  private final ProblemAdvice advice;

  ProblemErrorController(ProblemAdvice advice) {
    this.advice = advice;
  }

  @RequestMapping(
      value = "/error",
      produces = {})
  ResponseEntity<ProblemDetail> error(HttpServletRequest request) {
    Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
    // Called directly, not as an error dispatch: there is nothing here.
    int status = code instanceof Integer i && i >= 400 ? i : 404;
    Object failure = request.getAttribute(RequestDispatcher.ERROR_EXCEPTION);
    // A client's mistake that escaped Spring MVC's handlers (one failed while answering it) is
    // still the client's mistake.
    if (status == 500 && failure instanceof ErrorResponse known) {
      status = known.getStatusCode().value();
    } else if (status == 500 && failure instanceof HttpMessageNotReadableException) {
      status = 400;
    }
    ProblemDetail problem;
    if (status == 500 && failure instanceof Throwable t && ProblemAdvice.isDatabaseUnavailable(t)) {
      // A filter (the API key lookup) met the database down: the same 503 a handler answers.
      problem =
          advice.handleDatabaseDown(t instanceof Exception e ? e : new IllegalStateException(t));
      status = problem.getStatus();
    } else {
      problem =
          ProblemAdvice.frameworkProblem(
              failure instanceof Exception e ? e : new IllegalStateException(),
              HttpStatusCode.valueOf(status));
    }
    request.setAttribute(Problems.ATTRIBUTE, problem);
    return ResponseEntity.status(status)
        .contentType(MediaType.APPLICATION_PROBLEM_JSON)
        .body(problem);
  }
}
