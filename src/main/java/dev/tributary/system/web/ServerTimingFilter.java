package dev.tributary.system.web;

import dev.tributary.system.ServerTiming;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.core.annotation.Order;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * Sends {@link ServerTiming}'s header on the API's writes (POST, PUT, PATCH, DELETE under {@code
 * /v1/}): statements, declared sets, resources. Their answers are small JSON documents, buffered
 * here so that the header, known only at the end, goes before the body. Reads are left alone: event
 * streams must not be buffered, and a read's cost is the store's.
 */
@Component
@Order(-299)
public class ServerTimingFilter extends OncePerRequestFilter {

  @Override
  protected boolean shouldNotFilter(HttpServletRequest request) {
    String method = request.getMethod();
    return !request.getRequestURI().startsWith("/v1/")
        || method.equals("GET")
        || method.equals("HEAD")
        || method.equals("OPTIONS");
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    ContentCachingResponseWrapper buffered = new ContentCachingResponseWrapper(response);
    ServerTiming timing = ServerTiming.begin();
    try {
      chain.doFilter(request, buffered);
    } finally {
      timing.end();
      if (!buffered.isCommitted()) {
        buffered.setHeader(ServerTiming.HEADER, timing.header());
      }
      buffered.copyBodyToResponse();
    }
  }
}
