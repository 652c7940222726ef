package dev.tributary.statement;

import dev.tributary.security.Access;
import dev.tributary.security.AuditContext;
import dev.tributary.security.Role;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Statement;

/**
 * The role each statement needs, and where: reading definitions and status needs viewer, changing
 * tables and reading their rows needs developer, source tables need admin. A query that reads
 * tables of other databases needs developer there too: a table's rows are no more visible through
 * another table's query than they are directly.
 */
final class StatementAccess {

  private StatementAccess() {}

  /** 403 unless the caller may run {@code s} with the session's current catalog and database. */
  static void check(Statement s, String catalog, String database) {
    Target target = target(s, catalog, database);
    if (target == null) {
      return;
    }
    AuditContext.attempt(
        s.kind(),
        target.name().catalog()
            + "."
            + target.name().database()
            + (target.name().name() == null ? "" : "." + target.name().name()));
    Access.require(target.role(), target.name().catalog(), target.name().database());
    Access.requireReadable(target.query(), catalog, database);
  }

  /** The object a statement acts on, the role it needs there, and the query it runs, if any. */
  private record Target(Role role, ObjectName name, String query) {}

  private static Target target(Statement s, String catalog, String database) {
    if (s instanceof Statement.CreateMaterializedTable c) {
      return new Target(
          Role.DEVELOPER, c.name().resolve(catalog, database), c.definition().query());
    }
    if (s instanceof Statement.AlterMaterializedTable a) {
      String query = a.action() instanceof Statement.Evolve e ? e.definition().query() : null;
      return new Target(Role.DEVELOPER, a.name().resolve(catalog, database), query);
    }
    if (s instanceof Statement.Explain e) {
      Target inner = target(e.statement(), catalog, database);
      return inner == null ? null : new Target(Role.DEVELOPER, inner.name(), inner.query());
    }
    if (s instanceof Statement.DropMaterializedTable d) {
      return new Target(Role.DEVELOPER, d.name().resolve(catalog, database), null);
    }
    if (s instanceof Statement.ShowMaterializedTables show) {
      return database(Role.VIEWER, show.database(), catalog, database);
    }
    if (s instanceof Statement.ShowTables show) {
      return database(Role.VIEWER, show.database(), catalog, database);
    }
    if (s instanceof Statement.ShowCreateMaterializedTable show) {
      return new Target(Role.VIEWER, show.name().resolve(catalog, database), null);
    }
    if (s instanceof Statement.ShowMaterializedTable show) {
      return new Target(Role.VIEWER, show.name().resolve(catalog, database), null);
    }
    if (s instanceof Statement.Describe d) {
      return new Target(Role.VIEWER, d.name().resolve(catalog, database), null);
    }
    if (s instanceof Statement.Select select) {
      if ("information_schema".equalsIgnoreCase(select.from().database())) {
        return null; // its rows are those of the databases the caller sees
      }
      return new Target(Role.DEVELOPER, select.from().resolve(catalog, database), null);
    }
    if (s instanceof Statement.CreatePipelineTable p) {
      return new Target(
          Role.DEVELOPER,
          p.name().resolve(catalog, database),
          p.flow() == null ? null : p.flow().query());
    }
    if (s instanceof Statement.CreateFlow f) {
      String query = f.cdc() != null ? "SELECT * FROM " + f.cdc().source().sql() : f.query();
      return new Target(Role.DEVELOPER, f.target().resolve(catalog, database), query);
    }
    if (s instanceof Statement.DropFlow d) {
      return new Target(Role.DEVELOPER, d.name().resolve(catalog, database), null);
    }
    if (s instanceof Statement.AlterFlow a) {
      return new Target(Role.DEVELOPER, a.name().resolve(catalog, database), null);
    }
    if (s instanceof Statement.AlterPipelineTable a) {
      return new Target(Role.DEVELOPER, a.name().resolve(catalog, database), null);
    }
    if (s instanceof Statement.RefreshTable r) {
      return new Target(Role.DEVELOPER, r.name().resolve(catalog, database), null);
    }
    if (s instanceof Statement.ShowFlows f) {
      return f.table() == null
          ? new Target(Role.VIEWER, new ObjectName(catalog, database, null), null)
          : new Target(Role.VIEWER, f.table().resolve(catalog, database), null);
    }
    if (s instanceof Statement.CreateSourceTable c) {
      return new Target(Role.ADMIN, c.name().resolve(catalog, database), null);
    }
    if (s instanceof Statement.DropTable d) {
      // A pipeline table needs developer; a source table admin, checked when it is found.
      return new Target(Role.DEVELOPER, d.name().resolve(catalog, database), null);
    }
    if (s instanceof Statement.Use) {
      return null;
    }
    throw new IllegalStateException("No access rule for " + s.kind());
  }

  /** SHOW ... [FROM|IN] [catalog.]database: the parser keeps the catalog in the database part. */
  private static Target database(Role role, ObjectName db, String catalog, String database) {
    if (db == null) {
      return new Target(role, new ObjectName(catalog, database, null), null);
    }
    String inCatalog = db.database() != null ? db.database() : catalog;
    return new Target(role, new ObjectName(inCatalog, db.name(), null), null);
  }
}
