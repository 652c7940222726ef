package dev.tributary.system.web;

import dev.tributary.system.ErrorCode;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Set;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpHeaders;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.stereotype.Component;
import org.springframework.util.unit.DataSize;
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

  private final long maxBody;

  ContentTypeFilter(@Value("${tributary.limits.max-request-bytes:2MB}") DataSize maxBody) {
    this.maxBody = maxBody.toBytes();
  }

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
    long length = request.getContentLengthLong();
    if (length > maxBody) {
      Problems.write(request, response, tooLarge(length, maxBody));
      return;
    }
    chain.doFilter(length < 0 ? new Limited(request, maxBody) : request, response);
  }

  /** 413 naming the limit and what was sent. */
  static ProblemDetail tooLarge(long sent, long limit) {
    ProblemDetail problem =
        Problems.of(
            ErrorCode.PAYLOAD_TOO_LARGE,
            "The request body has "
                + (sent < 0 ? "more than " + limit : sent)
                + " bytes; at most "
                + limit
                + " are accepted (tributary.limits.max-request-bytes)");
    problem.setProperty("limit", limit);
    return problem;
  }

  /** A body sent without a length (chunked) fails to read past the limit. */
  static final class BodyTooLarge extends IOException {
    final long limit;

    BodyTooLarge(long limit) {
      super("The request body is larger than " + limit + " bytes");
      this.limit = limit;
    }
  }

  private static final class Limited extends HttpServletRequestWrapper {
    private final long limit;
    private ServletInputStream stream;

    Limited(HttpServletRequest request, long limit) {
      super(request);
      this.limit = limit;
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
      if (stream == null) {
        ServletInputStream in = super.getInputStream();
        stream =
            new ServletInputStream() {
              private long read;

              @Override
              public int read() throws IOException {
                int b = in.read();
                if (b >= 0 && ++read > limit) {
                  throw new BodyTooLarge(limit);
                }
                return b;
              }

              @Override
              public int read(byte[] buffer, int offset, int length) throws IOException {
                int n = in.read(buffer, offset, length);
                if (n > 0 && (read += n) > limit) {
                  throw new BodyTooLarge(limit);
                }
                return n;
              }

              @Override
              public boolean isFinished() {
                return in.isFinished();
              }

              @Override
              public boolean isReady() {
                return in.isReady();
              }

              @Override
              public void setReadListener(ReadListener listener) {
                in.setReadListener(listener);
              }
            };
      }
      return stream;
    }
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
