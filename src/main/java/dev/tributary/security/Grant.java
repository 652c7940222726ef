package dev.tributary.security;

/**
 * A role on a catalog and database; either may be {@code *}, meaning every one. Written {@code
 * role:catalog.database}, {@code role:catalog.*}, or {@code role} alone (or {@code role:*}) for
 * every catalog.
 */
public record Grant(Role role, String catalog, String database) {

  public static final String ANY = "*";

  public Grant {
    if (role == null || catalog == null || database == null) {
      throw new IllegalArgumentException("A grant needs a role, a catalog and a database");
    }
    if (catalog.equals(ANY) && !database.equals(ANY)) {
      throw new IllegalArgumentException(
          "A grant on every catalog covers every database: write " + role.label() + ":*");
    }
  }

  public static Grant everywhere(Role role) {
    return new Grant(role, ANY, ANY);
  }

  public static Grant parse(String text) {
    String trimmed = text == null ? "" : text.trim();
    int colon = trimmed.indexOf(':');
    Role role = Role.parse(colon < 0 ? trimmed : trimmed.substring(0, colon));
    String scope = colon < 0 ? ANY : trimmed.substring(colon + 1).trim();
    if (scope.equals(ANY)) {
      return everywhere(role);
    }
    int dot = scope.indexOf('.');
    if (dot <= 0 || dot == scope.length() - 1 || scope.indexOf('.', dot + 1) >= 0) {
      throw new IllegalArgumentException(
          "Grant '"
              + text
              + "' has no valid scope; write role:catalog.database, role:catalog.* or role:*");
    }
    return new Grant(role, scope.substring(0, dot), scope.substring(dot + 1));
  }

  /** Whether this grant lets its holder act as {@code needed} in the database. */
  public boolean allows(Role needed, String inCatalog, String inDatabase) {
    return role.includes(needed) && covers(inCatalog, inDatabase);
  }

  /** Whether the grant reaches the database (with any role). */
  public boolean covers(String inCatalog, String inDatabase) {
    return (catalog.equals(ANY) || catalog.equals(inCatalog))
        && (database.equals(ANY) || database.equals(inDatabase));
  }

  public boolean coversCatalog(String inCatalog) {
    return catalog.equals(ANY) || catalog.equals(inCatalog);
  }

  public boolean global() {
    return catalog.equals(ANY);
  }

  @Override
  public String toString() {
    return role.label() + ":" + (global() ? ANY : catalog + "." + database);
  }
}
