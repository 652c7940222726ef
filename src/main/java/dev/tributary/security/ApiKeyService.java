package dev.tributary.security;

import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * API keys. A key is {@code trb_} and 43 random URL-safe characters (256 bits): a single SHA-256 is
 * enough to keep it (there is nothing to guess, unlike a password), and lets a request find its key
 * by one indexed lookup.
 */
@Service
public class ApiKeyService {

  static final String PREFIX = "trb_";
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}");
  private static final Logger log = LoggerFactory.getLogger(ApiKeyService.class);

  private final ApiKeyRepository keys;
  private final AuditLog audit;
  private final SecurityProperties properties;
  private final JdbcTemplate jdbc;
  private final SecureRandom random = new SecureRandom();

  ApiKeyService(
      ApiKeyRepository keys, AuditLog audit, SecurityProperties properties, JdbcTemplate jdbc) {
    this.jdbc = jdbc;
    this.keys = keys;
    this.audit = audit;
    this.properties = properties;
  }

  /** A new key and its secret, which is not kept and cannot be shown again. */
  public record Created(ApiKey key, String secret) {}

  @Transactional
  public Created create(String name, List<Grant> grants, Instant expiresAt) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED,
          "'name' must be 1 to 100 letters, digits or _.@- starting with a letter or digit");
    }
    if (grants == null || grants.isEmpty()) {
      throw new ApiException(ErrorCode.VALIDATION_FAILED, "'grants' must name at least one grant");
    }
    if (expiresAt != null && !expiresAt.isAfter(Instant.now())) {
      throw new ApiException(ErrorCode.VALIDATION_FAILED, "'expiresAt' must be in the future");
    }
    if (keys.existsByNameAndRevokedAtIsNull(name)) {
      throw new ApiException(
          ErrorCode.ALREADY_EXISTS, "An API key named " + name + " exists; revoke it first");
    }
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    String secret = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    ApiKey key =
        keys.saveAndFlush(
            new ApiKey(
                name,
                hash(secret),
                secret.substring(0, 10),
                grants,
                Access.caller().name(),
                expiresAt));
    audit.changed("api-key.create", "api-key:" + name, null, describe(key));
    return new Created(key, secret);
  }

  @Transactional(readOnly = true)
  public List<ApiKey> list() {
    return keys.findAllByOrderByCreatedAtAsc();
  }

  @Transactional
  public ApiKey revoke(UUID id) {
    ApiKey key =
        keys.findById(id)
            .orElseThrow(
                () -> new ApiException(ErrorCode.NOT_FOUND, "API key " + id + " does not exist"));
    if (key.getRevokedAt() == null) {
      String before = describe(key);
      key.revoke(Instant.now());
      keys.saveAndFlush(key);
      audit.changed("api-key.revoke", "api-key:" + key.getName(), before, describe(key));
    }
    return key;
  }

  /**
   * The caller a secret proves, if it is a key that is neither revoked nor expired. Asked on every
   * request, so one indexed read in autocommit rather than a JPA query in a transaction of its own.
   * In {@code GetBench} (JFR on from the JVM's start), that lookup and its transaction were 11% of
   * a GET's request-thread samples; this read is 4%.
   */
  public Optional<Caller> authenticate(String secret) {
    Instant now = Instant.now();
    return jdbc
        .query(
            "SELECT id, name, grants, expires_at FROM api_key"
                + " WHERE key_hash = ? AND revoked_at IS NULL",
            (rs, row) -> {
              Timestamp expires = rs.getTimestamp("expires_at");
              return new Caller(
                  rs.getString("name"),
                  "api-key",
                  ApiKey.grants(rs.getString("grants")),
                  new Caller.Credential(
                      rs.getObject("id", UUID.class),
                      expires == null ? null : expires.toInstant()));
            },
            hash(secret))
        .stream()
        .filter(c -> ApiKey.unexpiredAt(c.credential().expiresAt(), now))
        .findFirst();
  }

  /** Whether the key is neither revoked nor expired now. */
  @Transactional(readOnly = true)
  public boolean active(UUID id) {
    return keys.findById(id).map(k -> k.activeAt(Instant.now())).orElse(false);
  }

  /** Creates the configured bootstrap admin key if no key has its secret yet. */
  @EventListener(ApplicationReadyEvent.class)
  @Transactional
  public void bootstrap() {
    String secret = properties.bootstrapAdminKey();
    if (secret == null || secret.isBlank()) {
      return;
    }
    if (!secret.startsWith(PREFIX) || secret.length() < PREFIX.length() + 32) {
      throw new IllegalStateException(
          "tributary.security.bootstrap-admin-key must start with trb_ and have 32 characters"
              + " after it");
    }
    // Every instance does this at startup: the first insert wins, the others change nothing.
    int inserted =
        jdbc.update(
            "INSERT INTO api_key (id, name, key_hash, prefix, grants, created_by, created_at)"
                + " VALUES (?, 'bootstrap-admin', ?, ?, ?, 'configuration', now())"
                + " ON CONFLICT DO NOTHING",
            UUID.randomUUID(),
            hash(secret),
            secret.substring(0, 10),
            Grant.everywhere(Role.ADMIN).toString());
    if (inserted == 1) {
      log.info("Created the API key bootstrap-admin from tributary.security.bootstrap-admin-key");
    } else if (keys.findByKeyHash(hash(secret)).isEmpty()) {
      log.warn(
          "tributary.security.bootstrap-admin-key was not created: another active key is named"
              + " bootstrap-admin; revoke it to use the configured one");
    }
  }

  private static String describe(ApiKey key) {
    return key.getName()
        + " "
        + key.grants()
        + (key.getExpiresAt() == null ? "" : " expires " + key.getExpiresAt())
        + (key.getRevokedAt() == null ? "" : " revoked " + key.getRevokedAt());
  }

  static String hash(String secret) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
