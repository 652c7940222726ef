package dev.tributary.security;

import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.security.oauth2.server.resource.InvalidBearerTokenException;
import org.springframework.security.oauth2.server.resource.web.BearerTokenResolver;
import org.springframework.security.oauth2.server.resource.web.DefaultBearerTokenResolver;

/**
 * Where a request's bearer token is: the Authorization header, as everywhere; or, for the status
 * page's GETs only ({@code /ui} and below), the HttpOnly cookie its sign-in set. A cookie is sent
 * by the browser on its own, so it is never accepted for a request that changes anything, nor
 * outside the page; and a session token is never accepted from the header.
 */
public final class UiCookie implements BearerTokenResolver {

  /** The cookie of the status page's session: a session token of its own ({@link UiSessions}). */
  public static final String NAME = "tributary_ui";

  private final DefaultBearerTokenResolver header = new DefaultBearerTokenResolver();

  @Override
  public String resolve(HttpServletRequest request) {
    String token = header.resolve(request);
    if (token != null && token.startsWith(UiSessions.PREFIX)) {
      throw new InvalidBearerTokenException(
          "A status page session is not an API credential; send an API key or a token");
    }
    if (token != null || !"GET".equals(request.getMethod()) || !isPage(request)) {
      return token;
    }
    Cookie[] cookies = request.getCookies();
    if (cookies == null) {
      return null;
    }
    for (Cookie cookie : cookies) {
      if (NAME.equals(cookie.getName()) && cookie.getValue().startsWith(UiSessions.PREFIX)) {
        return cookie.getValue();
      }
    }
    return null;
  }

  /** Whether the request is for the status page. */
  static boolean isPage(HttpServletRequest request) {
    String path = request.getRequestURI().substring(request.getContextPath().length());
    return path.equals("/ui") || path.startsWith("/ui/");
  }
}
