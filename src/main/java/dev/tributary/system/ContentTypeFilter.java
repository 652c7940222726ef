package dev.tributary.system;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Set;
import org.springframework.http.HttpHeaders;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * An Accept header that cannot be parsed is a 400 (Spring would fail while answering the error and
 * end in a 500). Every request body of the API is JSON. A body sent as anything else is a 415
 * before any framework code tries to read it (multipart parsing and wildcard types would otherwise
 * fail inside Spring with a 500).
 */
@Component
class ContentTypeFilter extends OncePerRequestFilter {

  private static final Set<String> WITH_BODY = Set.of("POST", "PUT", "PATCH");

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String accept = request.getHeader(HttpHeaders.ACCEPT);
    if (accept != null && !readable(accept)) {
      Problems.write(
          request,
          response,
          Problems.of(
              ErrorCode.BAD_REQUEST,
              "The Accept header cannot be read; send e.g. Accept: application/json"));
      return;
    }
    String type = request.getContentType();
    if (type != null && WITH_BODY.contains(request.getMethod()) && !json(type)) {
      Problems.write(
          request,
          response,
          Problems.of(
              ErrorCode.UNSUPPORTED_MEDIA_TYPE,
              "Content-Type '" + type.strip() + "' is not accepted: send application/json"));
      return;
    }
    chain.doFilter(request, response);
  }

  private static boolean readable(String accept) {
    try {
      MediaType.parseMediaTypes(accept);
      return true;
    } catch (InvalidMediaTypeException e) {
      return false;
    }
  }

  private static boolean json(String type) {
    try {
      MediaType media = MediaType.parseMediaType(type);
      return !media.isWildcardType()
          && !media.isWildcardSubtype()
          && (media.isCompatibleWith(MediaType.APPLICATION_JSON)
              || media.getSubtype().endsWith("+json"));
    } catch (InvalidMediaTypeException e) {
      return false;
    }
  }
}
