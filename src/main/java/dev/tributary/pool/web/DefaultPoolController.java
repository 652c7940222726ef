package dev.tributary.pool.web;

import dev.tributary.pool.ComputePoolDefaults;
import dev.tributary.pool.ComputePoolDefaults.Defaults;
import dev.tributary.security.Access;
import dev.tributary.security.AuditContext;
import dev.tributary.security.Grant;
import dev.tributary.security.Role;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The settings of a catalog and of a database: the compute pool their new tables run on when a
 * statement names none. A database's admin sets its database's; a catalog's admin sets the
 * catalog's, which applies to every database of it that sets none.
 */
@RestController
@RequestMapping("/v1/catalogs/{catalog}")
@Tag(name = "Compute pools")
class DefaultPoolController {

  private final ComputePoolDefaults defaults;

  DefaultPoolController(ComputePoolDefaults defaults) {
    this.defaults = defaults;
  }

  @Schema(name = "ScopeSettingsSpec")
  record SettingsSpec(
      @Schema(
              description =
                  "The pool new tables run on when their statement names none; '*' for the"
                      + " pool with the most room for each new table's job (among those the"
                      + " database's quotas allow); null or absent clears it")
          String defaultComputePool) {}

  @Schema(name = "ScopeSettings")
  record Settings(
      String catalog,
      @Schema(description = "Null for a catalog's settings") String database,
      @Schema(description = "The default set here; null when none is") String defaultComputePool,
      @Schema(
              description =
                  "Where a new table that names no pool runs; '*': the pool with most room")
          String newTablesRunOn,
      @Schema(
              description = "Whose default that is",
              allowableValues = {"database", "catalog", "service"})
          String from) {

    static Settings of(String catalog, String database, Defaults d) {
      return new Settings(catalog, database, d.set(), d.effective(), d.from());
    }
  }

  @GetMapping
  @Operation(
      operationId = "getCatalogSettings",
      summary = "A catalog's settings: its default compute pool")
  Settings catalog(@PathVariable String catalog) {
    if (!Access.seesCatalog(catalog)) {
      Access.require(Role.VIEWER, catalog, "*");
    }
    return Settings.of(catalog, null, defaults.require(catalog, null));
  }

  @PutMapping
  @Operation(
      operationId = "putCatalogSettings",
      summary = "Set a catalog's default compute pool (admin of the catalog)",
      description =
          "New tables of its databases that set no default and name no pool run there. Tables"
              + " already placed stay where they are. 400 for a pool that does not exist, 409 for"
              + " one being drained.")
  Settings putCatalog(@PathVariable String catalog, @RequestBody SettingsSpec spec) {
    AuditContext.attempt("PUT_CATALOG_SETTINGS", "catalog:" + catalog);
    Access.require(Role.ADMIN, catalog, Grant.ANY);
    return Settings.of(catalog, null, defaults.put(catalog, null, spec.defaultComputePool()));
  }

  @GetMapping("/databases/{database}")
  @Operation(
      operationId = "getDatabaseSettings",
      summary = "A database's settings: its default compute pool, and where its new tables run")
  Settings database(@PathVariable String catalog, @PathVariable String database) {
    Access.require(Role.VIEWER, catalog, database);
    return Settings.of(catalog, database, defaults.require(catalog, database));
  }

  @PutMapping("/databases/{database}")
  @Operation(
      operationId = "putDatabaseSettings",
      summary = "Set a database's default compute pool (admin of the database)",
      description =
          "New tables of the database that name no pool run there (before the catalog's"
              + " default). Tables already placed stay where they are. 400 for a pool that does"
              + " not exist, 409 for one being drained.")
  Settings putDatabase(
      @PathVariable String catalog, @PathVariable String database, @RequestBody SettingsSpec spec) {
    AuditContext.attempt("PUT_DATABASE_SETTINGS", "database:" + catalog + "." + database);
    Access.require(Role.ADMIN, catalog, database);
    return Settings.of(
        catalog, database, defaults.put(catalog, database, spec.defaultComputePool()));
  }
}
