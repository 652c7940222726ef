package dev.tributary.security;

import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.security.SecureRandom;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The status page's sessions: a random token of their own ({@code trs_} and 43 characters) in the
 * browser's cookie, stored as a SHA-256, tied to the API key it was made with (and revoked with it)
 * or to a JWT's caller until the token's expiry. The key itself never reaches the browser's cookie
 * jar.
 */
@Service
public class UiSessions {

  /** The start of every session token: never accepted as an API credential. */
  public static final String PREFIX = "trs_";

  /** The longest a session lives, whatever its credential. */
  public static final Duration LIFETIME = Duration.ofHours(12);

  private final JdbcTemplate jdbc;
  private final SecureRandom random = new SecureRandom();

  UiSessions(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  /** A new session for the caller of this request; the token is shown only here. */
  @Transactional
  public String open(Caller caller) {
    if (caller.credential() == null || "ui-session".equals(caller.via())) {
      throw new ApiException(
          ErrorCode.UNAUTHORIZED, "Sign in with an API key or a token, not with a page session");
    }
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    String token = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    Instant expires = Instant.now().plus(LIFETIME);
    Instant credentialExpires = caller.credential().expiresAt();
    if (credentialExpires != null && credentialExpires.isBefore(expires)) {
      expires = credentialExpires;
    }
    jdbc.update(
        "INSERT INTO ui_session (id, token_hash, api_key_id, caller_name, grants, created_at,"
            + " expires_at) VALUES (?, ?, ?, ?, ?, now(), ?)",
        UUID.randomUUID(),
        ApiKeyService.hash(token),
        "api-key".equals(caller.via()) ? caller.credential().id() : null,
        caller.name(),
        String.join("\n", caller.grants().stream().map(Grant::toString).toList()),
        Timestamp.from(expires));
    return token;
  }

  /** A session that has not expired, whose key (if it has one) is neither revoked nor expired. */
  private static final String LIVE =
      " FROM ui_session s LEFT JOIN api_key k ON k.id = s.api_key_id WHERE s.expires_at > now()"
          + " AND (s.api_key_id IS NULL OR (k.revoked_at IS NULL"
          + " AND (k.expires_at IS NULL OR k.expires_at > now())))";

  /** The caller a session token proves, if the session and its key are still good. */
  @Transactional(readOnly = true)
  public Optional<Caller> authenticate(String token) {
    return jdbc
        .query(
            "SELECT s.id, s.caller_name, s.grants, s.expires_at" + LIVE + " AND s.token_hash = ?",
            (rs, i) ->
                new Caller(
                    rs.getString(2),
                    "ui-session",
                    Arrays.stream(rs.getString(3).split("\n"))
                        .filter(g -> !g.isBlank())
                        .map(Grant::parse)
                        .toList(),
                    new Caller.Credential(
                        rs.getObject(1, UUID.class), rs.getTimestamp(4).toInstant())),
            ApiKeyService.hash(token))
        .stream()
        .findFirst();
  }

  /** Whether the session is still good: not ended, not expired, its key not revoked. */
  @Transactional(readOnly = true)
  public boolean active(UUID id) {
    return !jdbc.queryForList("SELECT s.id" + LIVE + " AND s.id = ?", UUID.class, id).isEmpty();
  }

  /** Ends the session of this token (sign out). */
  @Transactional
  public void close(String token) {
    jdbc.update("DELETE FROM ui_session WHERE token_hash = ?", ApiKeyService.hash(token));
  }
}
