package dev.tributary.sql;

/** A possibly qualified name: {@code [catalog.][database.]name}; absent parts are null. */
public record ObjectName(String catalog, String database, String name) {

  public static ObjectName of(String name) {
    return new ObjectName(null, null, name);
  }

  public boolean isQualified() {
    return catalog != null && database != null;
  }

  /** Fills the missing parts from the session's current catalog and database. */
  public ObjectName resolve(String currentCatalog, String currentDatabase) {
    if (isQualified()) {
      return this;
    }
    if (database != null) {
      return new ObjectName(currentCatalog, database, name);
    }
    return new ObjectName(currentCatalog, currentDatabase, name);
  }

  /** As written in SQL, each part backtick-quoted. */
  public String sql() {
    StringBuilder s = new StringBuilder();
    if (catalog != null) {
      s.append(Printer.identifier(catalog)).append('.');
    }
    if (database != null) {
      s.append(Printer.identifier(database)).append('.');
    }
    return s.append(Printer.identifier(name)).toString();
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder();
    if (catalog != null) {
      s.append(catalog).append('.');
    }
    if (database != null) {
      s.append(database).append('.');
    }
    return s.append(name).toString();
  }
}
