package dev.tributary.security;

import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.time.Instant;
import java.util.Optional;
import org.springframework.stereotype.Component;

/**
 * Checks a caller again after its request was authenticated: what stays open (an event stream) must
 * end when its credential does. An API key revoked or expired, a page session ended (or its key
 * revoked), a JWT past its expiry, or a grant that no longer covers the database all end it.
 */
@Component
public class Credentials {

  private final ApiKeyService keys;
  private final UiSessions sessions;

  Credentials(ApiKeyService keys, UiSessions sessions) {
    this.keys = keys;
    this.sessions = sessions;
  }

  /** Why the caller may no longer read the database's events, if it may not. */
  public Optional<ApiException> revoked(Caller caller, String catalog, String database) {
    if (caller == Caller.SYSTEM) {
      return Optional.empty();
    }
    Caller.Credential credential = caller.credential();
    if (credential != null
        && credential.expiresAt() != null
        && !credential.expiresAt().isAfter(Instant.now())) {
      return Optional.of(unauthorized("The credential of this stream expired"));
    }
    if (credential != null && credential.id() != null) {
      boolean active =
          switch (caller.via()) {
            case "api-key" -> keys.active(credential.id());
            case "ui-session" -> sessions.active(credential.id());
            default -> true;
          };
      if (!active) {
        return Optional.of(
            unauthorized("The credential of this stream was revoked, expired or signed out"));
      }
    }
    if (!caller.may(Role.VIEWER, catalog, database)) {
      return Optional.of(
          new ApiException(
              ErrorCode.FORBIDDEN,
              caller.name() + " may no longer read " + catalog + "." + database));
    }
    return Optional.empty();
  }

  private static ApiException unauthorized(String message) {
    return new ApiException(ErrorCode.UNAUTHORIZED, message);
  }
}
