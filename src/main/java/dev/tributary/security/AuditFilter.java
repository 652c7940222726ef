package dev.tributary.security;

import dev.tributary.system.web.Problems;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.annotation.Order;
import org.springframework.http.ProblemDetail;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Logs every refused attempt once its answer is known: a change refused with any 4xx, and any
 * request refused for want of credentials or permission (401, 403). Runs around the security
 * filters, so it sees their refusals too.
 */
@Component
@Order(-200)
class AuditFilter extends OncePerRequestFilter {

  private static final Logger log = LoggerFactory.getLogger(AuditFilter.class);
  private static final Set<String> READS = Set.of("GET", "HEAD", "OPTIONS", "TRACE");

  private final AuditLog audit;

  AuditFilter(AuditLog audit) {
    this.audit = audit;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    try {
      chain.doFilter(request, response);
    } finally {
      int status = response.getStatus();
      boolean refused =
          (status >= 400 && status < 500 && !READS.contains(request.getMethod()))
              || status == 401
              || status == 403;
      if (refused && !request.getRequestURI().startsWith("/actuator/health")) {
        record(request, status);
      }
    }
  }

  private void record(HttpServletRequest request, int status) {
    Caller caller = (Caller) request.getAttribute(AuditContext.CALLER);
    Object action = request.getAttribute(AuditContext.ACTION);
    Object resource = request.getAttribute(AuditContext.RESOURCE);
    ProblemDetail problem =
        request.getAttribute(Problems.ATTRIBUTE) instanceof ProblemDetail p ? p : null;
    Object code =
        problem == null || problem.getProperties() == null
            ? null
            : problem.getProperties().get("code");
    String detail = problem == null ? null : problem.getDetail();
    String path = request.getRequestURI();
    try {
      audit.refused(
          caller == null ? "anonymous" : caller.name(),
          action != null ? action.toString() : request.getMethod() + " " + path,
          resource != null ? resource.toString() : path,
          status,
          code != null ? code.toString() : status == 401 ? "UNAUTHORIZED" : null,
          detail);
    } catch (RuntimeException e) {
      // The answer is sent; a database outage must not turn it into another.
      log.warn("Could not log a refused request to the audit log: {}", e.toString());
    }
  }
}
