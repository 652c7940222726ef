package dev.tributary.catalog;

import dev.tributary.sql.ObjectName;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Catalogs, their databases and the source tables registered in them. */
@Service
public class CatalogService {

  private final CatalogRepository catalogs;
  private final CatalogDatabaseRepository databases;
  private final SourceTableRepository sourceTables;
  private final JdbcTemplate jdbc;

  CatalogService(
      CatalogRepository catalogs,
      CatalogDatabaseRepository databases,
      SourceTableRepository sourceTables,
      JdbcTemplate jdbc) {
    this.jdbc = jdbc;
    this.catalogs = catalogs;
    this.databases = databases;
    this.sourceTables = sourceTables;
  }

  /**
   * The database, created (with its catalog) when absent. Two requests that create the same new
   * database at once both get it: the inserts skip a row that a concurrent one made.
   */
  @Transactional
  public CatalogDatabase ensureDatabase(String catalog, String database) {
    Optional<CatalogDatabase> found = databases.findByCatalogNameAndName(catalog, database);
    if (found.isPresent()) {
      return found.get();
    }
    jdbc.update("INSERT INTO catalog (name) VALUES (?) ON CONFLICT (name) DO NOTHING", catalog);
    jdbc.update(
        "INSERT INTO catalog_database (catalog_id, name) SELECT id, ? FROM catalog WHERE name = ?"
            + " ON CONFLICT (catalog_id, name) DO NOTHING",
        database,
        catalog);
    return databases.findByCatalogNameAndName(catalog, database).orElseThrow();
  }

  /**
   * Registers a source table, or replaces the definition of the one with that name. Returns the
   * stored table.
   */
  @Transactional
  public SourceTable registerSourceTable(
      String catalog, String database, SourceTableDefinition definition) {
    CatalogDatabase db = ensureDatabase(catalog, database);
    String ddl = definition.createStatement(new ObjectName(catalog, database, definition.name()));
    return sourceTables
        .findByDatabaseAndName(db, definition.name())
        .map(
            existing -> {
              existing.update(definition, ddl);
              return existing;
            })
        .orElseGet(() -> sourceTables.save(new SourceTable(db, definition, ddl)));
  }

  @Transactional(readOnly = true)
  public Optional<CatalogDatabase> findDatabase(String catalog, String database) {
    return databases.findByCatalogNameAndName(catalog, database);
  }

  @Transactional(readOnly = true)
  public Optional<SourceTable> findSourceTable(ObjectName name) {
    return findDatabase(name.catalog(), name.database())
        .flatMap(db -> sourceTables.findByDatabaseAndName(db, name.name()));
  }

  @Transactional
  public void dropSourceTable(SourceTable table) {
    sourceTables.delete(table);
  }

  @Transactional(readOnly = true)
  public List<Catalog> catalogs() {
    return catalogs.findAll(org.springframework.data.domain.Sort.by("name"));
  }

  @Transactional(readOnly = true)
  public List<CatalogDatabase> databases(String catalog) {
    if (catalogs.findByName(catalog).isEmpty()) {
      throw new ApiException(ErrorCode.NOT_FOUND, "Catalog '" + catalog + "' does not exist");
    }
    return databases.findByCatalogNameOrderByName(catalog);
  }

  @Transactional(readOnly = true)
  public List<SourceTable> sourceTables(String catalog, String database) {
    return sourceTables.findByDatabaseOrderByName(database(catalog, database));
  }

  @Transactional(readOnly = true)
  public SourceTable sourceTable(String catalog, String database, String name) {
    return sourceTables
        .findByDatabaseAndName(database(catalog, database), name)
        .orElseThrow(
            () ->
                new ApiException(
                    ErrorCode.NOT_FOUND,
                    "Table '" + catalog + "." + database + "." + name + "' does not exist"));
  }

  private CatalogDatabase database(String catalog, String database) {
    return databases
        .findByCatalogNameAndName(catalog, database)
        .orElseThrow(
            () ->
                new ApiException(
                    ErrorCode.NOT_FOUND,
                    "Database '" + catalog + "." + database + "' does not exist"));
  }
}
