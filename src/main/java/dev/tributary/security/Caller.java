package dev.tributary.security;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Who is calling: a name for the audit log, how they proved it, and what they may do.
 *
 * @param name the API key's name, or the token's subject
 * @param via {@code api-key}, {@code jwt} or {@code ui-session}
 * @param credential what proved it, for checks made again later (a stream that stays open)
 */
public record Caller(String name, String via, List<Grant> grants, Credential credential) {

  public Caller {
    grants = List.copyOf(grants);
  }

  public Caller(String name, String via, List<Grant> grants) {
    this(name, via, grants, null);
  }

  /**
   * The credential behind a caller: an API key's or a status page session's id, and when it expires
   * (a JWT's {@code exp}); either may be null.
   */
  public record Credential(UUID id, Instant expiresAt) {}

  /** The reconciler and the scheduler, acting for requests made earlier. */
  public static final Caller SYSTEM = new Caller("system", "internal", List.of());

  public boolean may(Role role, String catalog, String database) {
    return grants.stream().anyMatch(g -> g.allows(role, catalog, database));
  }

  /** Whether any grant reaches the database: the caller may see that it exists. */
  public boolean sees(String catalog, String database) {
    return grants.stream().anyMatch(g -> g.covers(catalog, database));
  }

  public boolean seesCatalog(String catalog) {
    return grants.stream().anyMatch(g -> g.coversCatalog(catalog));
  }

  /** An admin of every catalog: API keys, connector policies and the audit log. */
  public boolean globalAdmin() {
    return grants.stream().anyMatch(g -> g.global() && g.role() == Role.ADMIN);
  }
}
