package dev.tributary.table.web;

import dev.tributary.security.Access;
import dev.tributary.security.AuditContext;
import dev.tributary.security.Role;
import dev.tributary.sql.ObjectName;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.table.MaterializedTable;
import dev.tributary.table.PipelineTables;
import dev.tributary.table.TableChange;
import dev.tributary.table.web.TableApi.FlowChangeResponse;
import dev.tributary.table.web.TableApi.Resource;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The flows of a pipeline table as resources: GET, PUT (from a CREATE FLOW) and DELETE, with the
 * envelope, preconditions and dry runs of tables; and one flow suspended or resumed on its own
 * (ALTER FLOW ... SUSPEND).
 */
@RestController
@RequestMapping("/v1/catalogs/{catalog}/databases/{database}/materialized-tables/{name}/flows")
@Tag(name = "Materialized tables", description = "Materialized tables as resources")
class FlowController {

  private final PipelineTables pipelines;
  private final PutTable putTable;
  private final TableResources resources;

  FlowController(PipelineTables pipelines, PutTable putTable, TableResources resources) {
    this.pipelines = pipelines;
    this.putTable = putTable;
    this.resources = resources;
  }

  @GetMapping("/{flow}")
  @Operation(
      operationId = "getFlow",
      summary = "Get one flow of a pipeline table: spec (its CREATE FLOW), status, job",
      description = "The ETag is the flow's resourceVersion, for If-Match on PUT and DELETE.")
  ResponseEntity<Resource> get(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @PathVariable String flow) {
    Access.require(Role.VIEWER, catalog, database);
    return TableResources.withEtag(
        HttpStatus.OK,
        resources.of(pipelines.flowOf(new ObjectName(catalog, database, name), flow)));
  }

  @PutMapping("/{flow}")
  @Operation(
      operationId = "putFlow",
      summary = "Create a flow of a pipeline table from its CREATE FLOW statement (spec.statement)",
      description =
          "As apply does with a declared flow: created when absent (201), unchanged when it is"
              + " there as given (200), 409 when it is there otherwise (DELETE it, then PUT it)."
              + " If-Match / If-None-Match: * and metadata.resourceVersion as for tables;"
              + " spec.stopped suspends or resumes it; dryRun: true answers the plan and changes"
              + " nothing.")
  @ApiResponse(
      responseCode = "200",
      description = "Unchanged; with dryRun, the plan",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(oneOf = {Resource.class, TableApi.PlanResponse.class})))
  @ApiResponse(
      responseCode = "201",
      description = "Created; the reconciler starts its job",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(implementation = Resource.class)))
  ResponseEntity<?> put(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @PathVariable String flow,
      @RequestHeader(value = HttpHeaders.IF_MATCH, required = false) String ifMatch,
      @RequestHeader(value = HttpHeaders.IF_NONE_MATCH, required = false) String ifNoneMatch,
      @RequestBody TableApi.PutRequest request) {
    ObjectName table = new ObjectName(catalog, database, name);
    AuditContext.attempt("PUT_FLOW", table + "." + flow);
    Access.require(Role.DEVELOPER, catalog, database);
    PutTable.Result result = putTable.putFlow(table, flow, ifMatch, ifNoneMatch, request);
    if (result.dryRun() != null) {
      return ResponseEntity.ok(result.dryRun());
    }
    return TableResources.withEtag(
        result.created() ? HttpStatus.CREATED : HttpStatus.OK, resources.of(result.table()));
  }

  @DeleteMapping("/{flow}")
  @Operation(
      operationId = "dropFlow",
      summary = "Drop one flow (DROP FLOW): its job is cancelled; the rows it wrote stay",
      description =
          "Answers at once with the flow in phase DELETING; GET answers 404 once it is gone."
              + " If-Match drops it only at that resourceVersion.")
  @ApiResponse(responseCode = "202", description = "The drop is under way")
  ResponseEntity<Resource> delete(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @PathVariable String flow,
      @RequestHeader(value = HttpHeaders.IF_MATCH, required = false) String ifMatch) {
    ObjectName table = new ObjectName(catalog, database, name);
    AuditContext.attempt("DELETE_FLOW", table + "." + flow);
    Access.require(Role.DEVELOPER, catalog, database);
    MaterializedTable row = pipelines.flowOf(table, flow);
    Long expected = PutTable.expectedVersion(ifMatch, null);
    if (expected != null && row.getResourceVersion() != expected) {
      throw new ApiException(
          ErrorCode.PRECONDITION_FAILED,
          "Stale resourceVersion "
              + expected
              + "; flow "
              + flow
              + " is at "
              + row.getResourceVersion()
              + ". Read it again and retry",
          Map.of("resourceVersion", row.getResourceVersion()));
    }
    ObjectName id = new ObjectName(catalog, database, flow);
    pipelines.dropFlow(id, false);
    return ResponseEntity.accepted()
        .body(resources.of(pipelines.findFlow(id).orElse(row))); // until the reconciler drops it
  }

  @PostMapping("/{flow}/suspend")
  @Operation(
      operationId = "suspendFlow",
      summary =
          "Suspend one flow of a pipeline table (ALTER FLOW ... SUSPEND): its job stops with a"
              + " savepoint; the table's other flows run on",
      description = "Answers at once; the flow's phase goes STOPPING, then STOPPED.")
  @ApiResponse(responseCode = "202", description = "Requested, or already so (outcome UNCHANGED)")
  ResponseEntity<FlowChangeResponse> suspend(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @PathVariable String flow) {
    return change(catalog, database, name, flow, true);
  }

  @PostMapping("/{flow}/resume")
  @Operation(
      operationId = "resumeFlow",
      summary =
          "Resume one suspended (or failed) flow of a pipeline table (ALTER FLOW ... RESUME): its"
              + " job starts from the savepoint it stopped with",
      description = "Answers at once; the flow's phase goes CREATING, then RUNNING.")
  @ApiResponse(responseCode = "202", description = "Requested, or already so (outcome UNCHANGED)")
  ResponseEntity<FlowChangeResponse> resume(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @PathVariable String flow) {
    return change(catalog, database, name, flow, false);
  }

  private ResponseEntity<FlowChangeResponse> change(
      String catalog, String database, String table, String flow, boolean stop) {
    Access.require(Role.DEVELOPER, catalog, database);
    MaterializedTable found = pipelines.flowOf(new ObjectName(catalog, database, table), flow);
    TableChange change = pipelines.suspendFlow(found.objectName(), stop);
    return ResponseEntity.accepted()
        .body(
            new FlowChangeResponse(
                found.objectName().toString(), change.outcome().name(), change.message()));
  }
}
