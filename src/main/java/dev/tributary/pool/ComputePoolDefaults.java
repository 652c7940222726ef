package dev.tributary.pool;

import dev.tributary.catalog.CatalogDatabase;
import dev.tributary.catalog.CatalogService;
import dev.tributary.plan.Placement;
import dev.tributary.plan.PoolDefaults;
import dev.tributary.port.FlinkJobs;
import dev.tributary.security.Access;
import dev.tributary.security.AuditLog;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.web.Problems;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Default compute pools of catalogs and databases: where a new table runs when its statement names
 * no pool. The database's default comes first, then its catalog's, then {@value
 * FlinkJobs#DEFAULT_POOL}. A table is placed once, when it is created, so setting or clearing a
 * default moves no table (a drain or an ALTER does).
 */
@Service
public class ComputePoolDefaults implements PoolDefaults {

  /**
   * What applies to a catalog or a database: the default {@code set} on it (null: none), and the
   * pool a new table would run on ({@code effective}) with where that comes from ({@code database},
   * {@code catalog} or {@code service}).
   */
  public record Defaults(String set, String effective, String from) {}

  private final JdbcTemplate jdbc;
  private final TransactionTemplate transactions;
  private final ComputePools pools;
  private final CatalogService catalogs;
  private final AuditLog audit;

  ComputePoolDefaults(
      JdbcTemplate jdbc,
      TransactionTemplate transactions,
      ComputePools pools,
      CatalogService catalogs,
      AuditLog audit) {
    this.jdbc = jdbc;
    this.transactions = transactions;
    this.pools = pools;
    this.catalogs = catalogs;
    this.audit = audit;
  }

  /** A row of compute_pool_default: its scope ({@code database} null for the catalog's). */
  private record Row(String database, String pool) {}

  /** The catalog's row and, when {@code database} is not null, the database's; one query. */
  private List<Row> rows(String catalog, String database) {
    return jdbc.query(
        "SELECT d.name AS database, f.pool FROM compute_pool_default f JOIN catalog c ON c.id ="
            + " f.catalog_id LEFT JOIN catalog_database d ON d.id = f.database_id WHERE c.name = ?"
            + " AND (f.database_id IS NULL OR d.name = ?)",
        (rs, i) -> new Row(rs.getString("database"), rs.getString("pool")),
        catalog,
        database);
  }

  @Override
  public Optional<String> defaultPool(String catalog, String database) {
    List<Row> rows = rows(catalog, database);
    return rows.stream()
        .filter(r -> r.database() != null)
        .findFirst()
        .or(() -> rows.stream().filter(r -> r.database() == null).findFirst())
        .map(Row::pool);
  }

  /** What applies to the database, or to the catalog when {@code database} is null. */
  private Defaults get(String catalog, String database) {
    List<Row> rows = rows(catalog, database);
    String ofCatalog =
        rows.stream().filter(r -> r.database() == null).map(Row::pool).findFirst().orElse(null);
    String ofDatabase =
        database == null
            ? null
            : rows.stream()
                .filter(r -> r.database() != null)
                .map(Row::pool)
                .findFirst()
                .orElse(null);
    String set = database == null ? ofCatalog : ofDatabase;
    if (ofDatabase != null) {
      return new Defaults(set, ofDatabase, "database");
    }
    if (ofCatalog != null) {
      return new Defaults(set, ofCatalog, "catalog");
    }
    return new Defaults(set, FlinkJobs.DEFAULT_POOL, "service");
  }

  /**
   * Sets (or, with a null {@code pool}, clears) the default of the database, or of the catalog when
   * {@code database} is null. The pool must exist and not be being drained (400, 409). A database
   * and its catalog must exist (404): they are made with their first table.
   */
  public Defaults put(String catalog, String database, String pool) {
    boolean choice = PoolDefaults.LEAST_LOADED.equals(pool);
    Optional<ComputePools.Pool> named =
        pool == null || choice ? Optional.empty() : pools.find(pool);
    if (pool != null && !choice) {
      if (named.isEmpty()) {
        throw new ApiException(
            ErrorCode.VALIDATION_FAILED,
            "defaultComputePool "
                + Problems.cut(pool)
                + " names no compute pool; the pools are "
                + String.join(", ", pools.list().stream().map(ComputePools.Pool::name).toList())
                + ", and "
                + PoolDefaults.LEAST_LOADED
                + " chooses the one with the most room",
            Map.of("field", "defaultComputePool", "pool", pool));
      }
      pools
          .drainingTo(pool)
          .ifPresent(
              to -> {
                throw Placement.beingDrained(pool, to, "name " + to);
              });
    }
    Long catalogId = catalogId(catalog);
    Long databaseId = database == null ? null : databaseId(catalog, database);
    String scope = database == null ? "catalog " + catalog : catalog + "." + database;
    transactions.executeWithoutResult(
        tx -> {
          if (named.isPresent()
              && !named.get().configured()
              && jdbc.queryForList(
                      "SELECT name FROM compute_pool WHERE name = ? FOR SHARE", String.class, pool)
                  .isEmpty()) {
            // Deleted since it was read; the lock keeps a DELETE from passing this default by.
            throw new ApiException(ErrorCode.CONFLICT, "Compute pool " + pool + " was deleted");
          }
          String before = get(catalog, database).set();
          if (pool == null) {
            jdbc.update(
                "DELETE FROM compute_pool_default WHERE catalog_id = ? AND database_id IS NOT"
                    + " DISTINCT FROM ?",
                catalogId,
                databaseId);
          } else {
            jdbc.update(
                "INSERT INTO compute_pool_default (catalog_id, database_id, pool, updated_by)"
                    + " VALUES (?, ?, ?, ?) ON CONFLICT (catalog_id, (COALESCE(database_id, 0)))"
                    + " DO UPDATE SET pool = EXCLUDED.pool, updated_by = EXCLUDED.updated_by,"
                    + " updated_at = now()",
                catalogId,
                databaseId,
                pool,
                Access.caller().name());
          }
          audit.changed("SET DEFAULT COMPUTE POOL", scope, before, pool);
        });
    return get(catalog, database);
  }

  /** What applies to the database (or the catalog, for a null one) that must exist (404). */
  public Defaults require(String catalog, String database) {
    catalogId(catalog);
    if (database != null) {
      databaseId(catalog, database);
    }
    return get(catalog, database);
  }

  private Long databaseId(String catalog, String database) {
    return catalogs
        .findDatabase(catalog, database)
        .map(CatalogDatabase::getId)
        .orElseThrow(
            () ->
                new ApiException(
                    ErrorCode.NOT_FOUND,
                    "Database "
                        + Problems.cut(catalog + "." + database)
                        + " does not exist; it is made with its first table (its catalog's"
                        + " default applies to that one)"));
  }

  /** The catalog's id; 404 for none (a catalog is made with its first table). */
  private Long catalogId(String catalog) {
    return jdbc.queryForList("SELECT id FROM catalog WHERE name = ?", Long.class, catalog).stream()
        .findFirst()
        .orElseThrow(
            () ->
                new ApiException(
                    ErrorCode.NOT_FOUND,
                    "Catalog "
                        + Problems.cut(catalog)
                        + " does not exist; it is made with its first table"));
  }
}
