package dev.tributary.security;

import java.util.Locale;

/**
 * What a caller may do in a catalog and database. Each role includes the ones before it: a
 * developer may do what a viewer may, an admin what a developer may.
 */
public enum Role {
  /** Read definitions, status, versions, events and lineage. */
  VIEWER,
  /** Create, change, suspend, resume, refresh and drop tables; read their rows. */
  DEVELOPER,
  /** Source tables and catalogs; with a grant on every catalog, also keys, policies, the audit. */
  ADMIN;

  public boolean includes(Role other) {
    return compareTo(other) >= 0;
  }

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** {@code viewer}, {@code developer} or {@code admin}, in any case. */
  public static Role parse(String text) {
    for (Role role : values()) {
      if (role.name().equalsIgnoreCase(text.trim())) {
        return role;
      }
    }
    throw new IllegalArgumentException(
        "Unknown role '" + text + "'; the roles are viewer, developer and admin");
  }
}
