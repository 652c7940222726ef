package dev.tributary.security;

import dev.tributary.sql.ObjectName;
import dev.tributary.sql.QueryReferences;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.util.List;
import java.util.Map;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.context.request.RequestContextHolder;

/**
 * The authorization checks, made where a request names what it acts on. Outside a request (the
 * reconciler, scheduled refreshes, the local mode's example tables) the caller is {@link
 * Caller#SYSTEM}, which may do everything it is asked to by the service itself; inside one, only an
 * authenticated caller's grants count.
 */
public final class Access {

  private Access() {}

  /** An HTTP request that did not authenticate: it may do nothing. */
  static final Caller ANONYMOUS = new Caller("anonymous", "none", List.of());

  /**
   * The caller of the current request; {@link #ANONYMOUS} for a request without credentials (only
   * the endpoints open to all get that far); {@link Caller#SYSTEM} outside any request.
   */
  public static Caller caller() {
    Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
    if (authentication != null && authentication.getPrincipal() instanceof Caller caller) {
      return caller;
    }
    return RequestContextHolder.getRequestAttributes() != null ? ANONYMOUS : Caller.SYSTEM;
  }

  private static boolean internal(Caller caller) {
    return caller == Caller.SYSTEM;
  }

  /** 403 unless the caller holds {@code role} (or more) on the database. */
  public static void require(Role role, String catalog, String database) {
    Caller caller = caller();
    if (!internal(caller) && !caller.may(role, catalog, database)) {
      throw forbidden(caller, role.label() + " on " + catalog + "." + database);
    }
  }

  /**
   * 403 unless the caller may read the rows of every table the query reads (developer there): a
   * table's rows are no more visible through another table's query than they are directly.
   */
  public static void requireReadable(String query, String catalog, String database) {
    if (query == null || internal(caller())) {
      return;
    }
    for (ObjectName read : QueryReferences.tables(query)) {
      ObjectName r = read.resolve(catalog, database);
      if (r.catalog() != null && r.database() != null) {
        require(Role.DEVELOPER, r.catalog(), r.database());
      }
    }
  }

  /** 403 unless the caller is an admin of every catalog. */
  public static void requireGlobalAdmin() {
    Caller caller = caller();
    if (!internal(caller) && !caller.globalAdmin()) {
      throw forbidden(caller, "admin on every catalog (admin:*)");
    }
  }

  public static boolean sees(String catalog, String database) {
    Caller caller = caller();
    return internal(caller) || caller.sees(catalog, database);
  }

  public static boolean seesCatalog(String catalog) {
    Caller caller = caller();
    return internal(caller) || caller.seesCatalog(catalog);
  }

  private static ApiException forbidden(Caller caller, String permission) {
    return new ApiException(
        ErrorCode.FORBIDDEN,
        caller.name() + " may not do this: it needs " + permission,
        Map.of("permission", permission));
  }
}
