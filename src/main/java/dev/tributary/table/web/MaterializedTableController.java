package dev.tributary.table.web;

import dev.tributary.security.Access;
import dev.tributary.security.AuditContext;
import dev.tributary.security.Role;
import dev.tributary.sql.ObjectName;
import dev.tributary.system.Paging;
import dev.tributary.system.Paging.Page;
import dev.tributary.system.PagingDocs;
import dev.tributary.table.MaterializedTable;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.Phase;
import dev.tributary.table.TableWaits;
import dev.tributary.table.Waits;
import dev.tributary.table.web.TableApi.PutRequest;
import dev.tributary.table.web.TableApi.Resource;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Duration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;

/**
 * Materialized tables as JSON resources, for CI pipelines and Terraform-style clients: list, get,
 * create-or-update with optimistic concurrency (the use case is {@link PutTable}), delete. Their
 * history, refreshes and data are sub-resources with controllers of their own.
 */
@RestController
@RequestMapping("/v1/catalogs/{catalog}/databases/{database}/materialized-tables")
@Tag(name = "Materialized tables", description = "Materialized tables as resources")
class MaterializedTableController {

  private final MaterializedTableService tables;
  private final PutTable putTable;
  private final TableResources resources;
  private final TableWaits waits;

  MaterializedTableController(
      MaterializedTableService tables,
      PutTable putTable,
      TableResources resources,
      TableWaits waits) {
    this.tables = tables;
    this.putTable = putTable;
    this.resources = resources;
    this.waits = waits;
  }

  @GetMapping
  @Operation(
      operationId = "listMaterializedTables",
      summary = "List materialized tables, optionally by phase, a page at a time",
      description =
          "Materialized tables, pipeline tables and flows of the database, by name; 404 when"
              + " the database does not exist.")
  Page<Resource> list(
      @PathVariable String catalog,
      @PathVariable String database,
      @RequestParam(required = false) Phase phase,
      @Parameter(description = PagingDocs.LIMIT) @RequestParam(required = false) Integer limit,
      @Parameter(description = PagingDocs.TOKEN) @RequestParam(required = false) String pageToken) {
    Access.require(Role.VIEWER, catalog, database);
    String list = "materialized-tables:" + catalog + "." + database + ":" + phase;
    int size = Paging.limit(limit);
    Page<MaterializedTable> page =
        Paging.fetched(
            list,
            tables.page(catalog, database, phase, Paging.after(list, pageToken), size + 1),
            size,
            MaterializedTable::getName);
    return new Page<>(page.items().stream().map(resources::of).toList(), page.nextPageToken());
  }

  @GetMapping("/{name}")
  @Operation(
      operationId = "getMaterializedTable",
      summary =
          "Get one materialized table: spec, status, conditions, topic, subjects, job; with"
              + " waitSeconds, answered once it has settled or when the wait is up",
      description =
          "The ETag is the resourceVersion: send it as If-Match to change the table only if no one"
              + " changed it since. Instead of polling: after a change, a CI step asks with"
              + " waitSeconds (at most "
              + TableWaits.MAX_WAIT_SECONDS
              + "), and the answer comes as soon as status.observedGeneration equals"
              + " metadata.generation, that is once the table is at rest (RUNNING, STOPPED,"
              + " FAILED, SUCCEEDED, PENDING) at its current definition (after a new query, once"
              + " its job has run through the readiness window: RUNNING comes first); if it has"
              + " not settled when the wait is up, the answer is the table as it is then, and the"
              + " step asks again. A table dropped meanwhile answers 404. A replica holds a"
              + " bounded number of waiting requests; beyond it the answer is a 429 with"
              + " Retry-After.")
  ResponseEntity<Resource> get(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @Parameter(
              description =
                  "Seconds to wait for the table to settle, 0 to "
                      + TableWaits.MAX_WAIT_SECONDS
                      + "; none or 0 answers at once")
          @RequestParam(required = false)
          Integer waitSeconds) {
    Access.require(Role.VIEWER, catalog, database);
    Duration wait = Waits.requested(waitSeconds);
    ObjectName id = new ObjectName(catalog, database, name);
    MaterializedTable table = tables.get(id);
    if (!wait.isZero() && !TableWaits.settled(table)) {
      table = waits.await(table.getId(), () -> tables.get(id), wait);
    }
    return TableResources.withEtag(HttpStatus.OK, resources.of(table));
  }

  @PutMapping("/{name}")
  @Operation(
      operationId = "putMaterializedTable",
      summary = "Create or update from JSON",
      description =
          "spec.statement (a CREATE [OR ALTER] MATERIALIZED TABLE) or spec.definition (as GET returns it);"
              + " spec.stopped suspends or resumes. Send the resourceVersion you read (If-Match or metadata.resourceVersion):"
              + " a stale one is refused with 409. dryRun: true answers the plan and changes nothing.")
  @ApiResponse(
      responseCode = "200",
      description = "Updated (or unchanged); with dryRun, the plan of the change",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(oneOf = {Resource.class, TableApi.PlanResponse.class})))
  @ApiResponse(
      responseCode = "201",
      description = "Created; the reconciler provisions it from now on",
      headers =
          @Header(
              name = "Location",
              description = "The table's URL",
              schema = @Schema(type = "string", format = "uri")),
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = Resource.class)))
  ResponseEntity<?> put(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @RequestHeader(value = HttpHeaders.IF_MATCH, required = false) String ifMatch,
      @RequestHeader(value = HttpHeaders.IF_NONE_MATCH, required = false) String ifNoneMatch,
      @RequestBody PutRequest request) {
    ObjectName id = new ObjectName(catalog, database, name);
    AuditContext.attempt("PUT_MATERIALIZED_TABLE", id.toString());
    Access.require(Role.DEVELOPER, catalog, database);
    PutTable.Result result = putTable.put(id, ifMatch, ifNoneMatch, request);
    if (result.dryRun() != null) {
      return ResponseEntity.ok(result.dryRun());
    }
    ResponseEntity<Resource> answer =
        TableResources.withEtag(
            result.created() ? HttpStatus.CREATED : HttpStatus.OK, resources.of(result.table()));
    if (!result.created()) {
      return answer;
    }
    return ResponseEntity.status(HttpStatus.CREATED)
        .headers(answer.getHeaders())
        .location(ServletUriComponentsBuilder.fromCurrentRequestUri().build().toUri())
        .body(answer.getBody());
  }

  @DeleteMapping("/{name}")
  @Operation(
      operationId = "dropMaterializedTable",
      summary =
          "Drop: the job is cancelled, topic and subjects deleted, then the definition removed (kept in history)",
      description =
          "Answers at once with the table in phase DELETING; the reconciler drops it, and GET"
              + " answers 404 once it is gone. Its versions and events still answer.")
  @ApiResponse(
      responseCode = "202",
      description = "The drop is under way",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = Resource.class)))
  ResponseEntity<Resource> delete(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @RequestHeader(value = HttpHeaders.IF_MATCH, required = false) String ifMatch) {
    ObjectName id = new ObjectName(catalog, database, name);
    AuditContext.attempt("DELETE_MATERIALIZED_TABLE", id.toString());
    Access.require(Role.DEVELOPER, catalog, database);
    Long expected = PutTable.expectedVersion(ifMatch, null);
    if (expected != null) {
      // Checked again in the drop's transaction: a change in between is not dropped unseen.
      tables.drop(id, false, expected);
    } else {
      tables.drop(id, false);
    }
    return ResponseEntity.accepted().body(resources.of(tables.get(id)));
  }
}
