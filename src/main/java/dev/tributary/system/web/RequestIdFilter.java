package dev.tributary.system.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.UUID;
import java.util.regex.Pattern;
import org.slf4j.MDC;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Every request has an id: the caller's {@code X-Request-Id} when it is a plain token (a proxy's or
 * a CI job's), else a new one. It is sent back in the same header and is {@code request_id} in
 * every log line the request writes (with {@code principal}, set once the caller is known), so a
 * line in the logs can be matched to the call that caused it.
 */
@Component
@Order(-300)
public class RequestIdFilter extends OncePerRequestFilter {

  public static final String HEADER = "X-Request-Id";

  /** The MDC keys a request sets. */
  public static final String REQUEST_ID = "request_id";

  public static final String PRINCIPAL = "principal";

  private static final Pattern ACCEPTED = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String given = request.getHeader(HEADER);
    String id =
        given != null && ACCEPTED.matcher(given).matches() ? given : UUID.randomUUID().toString();
    response.setHeader(HEADER, id);
    MDC.put(REQUEST_ID, id);
    try {
      chain.doFilter(request, response);
    } finally {
      MDC.remove(REQUEST_ID);
      MDC.remove(PRINCIPAL);
    }
  }
}
