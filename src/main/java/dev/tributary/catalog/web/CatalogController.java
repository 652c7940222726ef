package dev.tributary.catalog.web;

import dev.tributary.catalog.CatalogService;
import dev.tributary.catalog.SourceTable;
import dev.tributary.catalog.SourceTableDefinition;
import dev.tributary.security.Access;
import dev.tributary.security.AuditContext;
import dev.tributary.security.ConnectorPolicy;
import dev.tributary.security.Grant;
import dev.tributary.security.Role;
import dev.tributary.security.SecurityProperties;
import dev.tributary.sql.TableSchema;
import dev.tributary.statement.TopicOwnership;
import dev.tributary.system.ApiException;
import dev.tributary.system.ApiVersion;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.Paging;
import dev.tributary.system.Paging.Page;
import dev.tributary.system.PagingDocs;
import dev.tributary.system.web.Problems;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Read access to catalogs, databases and the source tables registered in them. */
@RestController
@RequestMapping("/v1/catalogs")
@Tag(name = "Catalogs", description = "Catalogs, databases and source tables")
class CatalogController {

  private final CatalogService catalogs;
  private final ConnectorPolicy policy;
  private final TopicOwnership ownership;

  CatalogController(CatalogService catalogs, ConnectorPolicy policy, TopicOwnership ownership) {
    this.catalogs = catalogs;
    this.policy = policy;
    this.ownership = ownership;
  }

  /**
   * A catalog's connector policy in effect, and the source tables registered before it that break
   * its topic ownership.
   */
  record ConnectorPolicyAnswer(
      List<String> connectors,
      List<String> bootstrapServers,
      List<String> urls,
      List<String> paths,
      List<String> properties,
      Map<String, List<String>> topics,
      List<String> violations) {}

  private ConnectorPolicyAnswer answer(String catalog, SecurityProperties.Policy p) {
    return new ConnectorPolicyAnswer(
        p.connectors(),
        p.bootstrapServers(),
        p.urls(),
        p.paths(),
        p.properties(),
        p.topics(),
        ownership.violations(catalog));
  }

  @GetMapping("/{catalog}/connector-policy")
  @Operation(
      operationId = "getConnectorPolicy",
      summary = "What source tables of the catalog may reach (admin of the catalog)",
      description =
          "Connectors, Kafka servers, URL prefixes, paths and Kafka client properties allowed, and"
              + " the topics each database owns; the service's own cluster and registry are always"
              + " included. Set under tributary.security.connectors. violations lists source"
              + " tables registered earlier that read a topic of another database or table.")
  ConnectorPolicyAnswer connectorPolicy(@PathVariable String catalog) {
    Access.require(Role.ADMIN, catalog, Grant.ANY);
    return answer(catalog, policy.effective(catalog));
  }

  @PutMapping("/{catalog}/connector-policy")
  @Operation(
      operationId = "replaceConnectorPolicy",
      summary = "Set what source tables of the catalog may reach (admin of the catalog)",
      description =
          "connectors, bootstrapServers, urls, paths, properties and topics; the service's own"
              + " cluster and registry stay allowed; 404 for a catalog that does not exist. Applies to source tables registered from now on. Answers the policy in"
              + " effect.")
  ConnectorPolicyAnswer replaceConnectorPolicy(
      @PathVariable String catalog, @RequestBody SecurityProperties.Policy request) {
    AuditContext.attempt("PUT_CONNECTOR_POLICY", "connector-policy:" + catalog);
    Access.require(Role.ADMIN, catalog, Grant.ANY);
    if (catalogs.catalogs().stream().noneMatch(c -> c.getName().equals(catalog))) {
      throw new ApiException(
          ErrorCode.NOT_FOUND,
          "Catalog "
              + Problems.cut(catalog)
              + " does not exist; a policy is set for a catalog"
              + " that has databases");
    }
    return answer(catalog, policy.replace(catalog, request));
  }

  @DeleteMapping("/{catalog}/connector-policy")
  @Operation(
      operationId = "resetConnectorPolicy",
      summary = "Go back to the configured policy of the catalog (admin of the catalog)",
      description =
          "Removes the policy set through the API; the catalog's configured policy (tributary.security.connectors) applies again.")
  ConnectorPolicyAnswer resetConnectorPolicy(@PathVariable String catalog) {
    AuditContext.attempt("DELETE_CONNECTOR_POLICY", "connector-policy:" + catalog);
    Access.require(Role.ADMIN, catalog, Grant.ANY);
    return answer(catalog, policy.reset(catalog));
  }

  @GetMapping
  @Operation(
      operationId = "listCatalogs",
      summary = "List catalogs",
      description = "The catalogs the caller may read something in.")
  Page<CatalogResponse> catalogs(
      @Parameter(description = PagingDocs.LIMIT) @RequestParam(required = false) Integer limit,
      @Parameter(description = PagingDocs.TOKEN) @RequestParam(required = false) String pageToken) {
    // Only the catalogs the caller holds a grant in.
    return Paging.page(
        "catalogs",
        catalogs.catalogs().stream()
            .filter(c -> Access.seesCatalog(c.getName()))
            .map(c -> new CatalogResponse(c.getName()))
            .toList(),
        CatalogResponse::name,
        Paging.BY_NAME,
        limit,
        pageToken);
  }

  @GetMapping("/{catalog}/databases")
  @Operation(
      operationId = "listDatabases",
      summary = "List the databases of a catalog",
      description = "The databases of the catalog the caller may read.")
  Page<DatabaseResponse> databases(
      @PathVariable String catalog,
      @Parameter(description = PagingDocs.LIMIT) @RequestParam(required = false) Integer limit,
      @Parameter(description = PagingDocs.TOKEN) @RequestParam(required = false) String pageToken) {
    if (!Access.seesCatalog(catalog)) {
      Access.require(Role.VIEWER, catalog, "*");
    }
    return Paging.page(
        "databases:" + catalog,
        catalogs.databases(catalog).stream()
            .filter(d -> Access.sees(catalog, d.getName()))
            .map(d -> new DatabaseResponse(catalog, d.getName()))
            .toList(),
        DatabaseResponse::name,
        Paging.BY_NAME,
        limit,
        pageToken);
  }

  @GetMapping("/{catalog}/databases/{database}/tables")
  @Operation(
      operationId = "listSourceTables",
      summary = "List the source tables of a database",
      description =
          "Tables created with CREATE TABLE (the inputs of queries), with their columns and connector options; secrets are redacted.")
  Page<SourceTableResponse> tables(
      @PathVariable String catalog,
      @PathVariable String database,
      @Parameter(description = PagingDocs.LIMIT) @RequestParam(required = false) Integer limit,
      @Parameter(description = PagingDocs.TOKEN) @RequestParam(required = false) String pageToken) {
    Access.require(Role.VIEWER, catalog, database);
    return Paging.page(
        "tables:" + catalog + "." + database,
        catalogs.sourceTables(catalog, database).stream().map(SourceTableResponse::of).toList(),
        t -> t.metadata().name(),
        Paging.BY_NAME,
        limit,
        pageToken);
  }

  @GetMapping("/{catalog}/databases/{database}/tables/{table}")
  @Operation(
      operationId = "getSourceTable",
      summary = "Get one source table",
      description =
          "Its columns, watermark, primary key and connector options; secrets are redacted.")
  SourceTableResponse table(
      @PathVariable String catalog, @PathVariable String database, @PathVariable String table) {
    Access.require(Role.VIEWER, catalog, database);
    return SourceTableResponse.of(catalogs.sourceTable(catalog, database, table));
  }

  record CatalogResponse(String name) {}

  record DatabaseResponse(String catalog, String name) {}

  /**
   * A source table in the same envelope as a materialized table: {@code apiVersion}, {@code kind},
   * {@code metadata}, {@code spec}. It has no status: the service does not run anything for it.
   */
  @Schema(
      name = "SourceTable",
      description =
          "A table created with CREATE TABLE: the input of queries. The service stores it and runs"
              + " nothing for it, so it has no status")
  record SourceTableResponse(
      @Schema(example = "tributary.dev/v2") String apiVersion,
      @Schema(allowableValues = "SourceTable") String kind,
      SourceMetadata metadata,
      SourceSpec spec) {

    static SourceTableResponse of(SourceTable table) {
      SourceTableDefinition definition = table.definition();
      return new SourceTableResponse(
          ApiVersion.CURRENT,
          "SourceTable",
          new SourceMetadata(
              table.getDatabase().getCatalog().getName(),
              table.getDatabase().getName(),
              table.getName(),
              table.qualifiedName(),
              table.getUpdatedAt()),
          new SourceSpec(
              table.getDdl(), definition.schema(), definition.comment(), definition.options()));
    }
  }

  @Schema(name = "SourceTableMetadata")
  record SourceMetadata(
      String catalog, String database, String name, String qualifiedName, Instant updatedAt) {}

  @Schema(name = "SourceTableSpec")
  record SourceSpec(
      @Schema(description = "The CREATE TABLE statement, as SHOW CREATE TABLE prints it")
          String statement,
      TableSchema schema,
      String comment,
      @Schema(description = "The connector options; secrets are redacted")
          Map<String, String> options) {}
}
