package dev.tributary.security;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/** An API key: only the SHA-256 of its secret is kept, and the first characters to recognise it. */
@Entity
@Table(name = "api_key")
public class ApiKey {

  @Id private UUID id;

  @Column(nullable = false)
  private String name;

  @Column(name = "key_hash", nullable = false)
  private String keyHash;

  @Column(nullable = false)
  private String prefix;

  /** Grants as {@code role:catalog.database}, one per line. */
  @Column(nullable = false)
  private String grants;

  @Column(name = "created_by", nullable = false)
  private String createdBy;

  @Column(name = "created_at", nullable = false)
  private Instant createdAt;

  @Column(name = "expires_at")
  private Instant expiresAt;

  @Column(name = "revoked_at")
  private Instant revokedAt;

  protected ApiKey() {}

  ApiKey(
      String name,
      String keyHash,
      String prefix,
      List<Grant> grants,
      String createdBy,
      Instant expiresAt) {
    this.id = UUID.randomUUID();
    this.name = name;
    this.keyHash = keyHash;
    this.prefix = prefix;
    this.grants = String.join("\n", grants.stream().map(Grant::toString).toList());
    this.createdBy = createdBy;
    this.createdAt = Instant.now();
    this.expiresAt = expiresAt;
  }

  public boolean activeAt(Instant now) {
    return revokedAt == null && unexpiredAt(expiresAt, now);
  }

  /**
   * Whether a key that expires at {@code expiresAt} (null: never) is still valid at {@code now}.
   */
  static boolean unexpiredAt(Instant expiresAt, Instant now) {
    return expiresAt == null || expiresAt.isAfter(now);
  }

  void revoke(Instant at) {
    if (revokedAt == null) {
      revokedAt = at;
    }
  }

  public List<Grant> grants() {
    return grants(grants);
  }

  /** Grants stored as {@code role:catalog.database}, one per line. */
  static List<Grant> grants(String stored) {
    return Arrays.stream(stored.split("\n")).filter(g -> !g.isBlank()).map(Grant::parse).toList();
  }

  public UUID getId() {
    return id;
  }

  public String getName() {
    return name;
  }

  public String getPrefix() {
    return prefix;
  }

  public String getCreatedBy() {
    return createdBy;
  }

  public Instant getCreatedAt() {
    return createdAt;
  }

  public Instant getExpiresAt() {
    return expiresAt;
  }

  public Instant getRevokedAt() {
    return revokedAt;
  }

  String getKeyHash() {
    return keyHash;
  }
}
