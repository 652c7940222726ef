package dev.tributary.table.web;

import dev.tributary.security.Access;
import dev.tributary.security.Role;
import dev.tributary.sql.ObjectName;
import dev.tributary.table.MaterializedTable;
import dev.tributary.table.PipelineTables;
import dev.tributary.table.TableChange;
import dev.tributary.table.web.TableApi.FlowChangeResponse;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** One flow of a pipeline table suspended or resumed on its own (ALTER FLOW ... SUSPEND). */
@RestController
@RequestMapping("/v1/catalogs/{catalog}/databases/{database}/materialized-tables/{name}/flows")
@Tag(name = "Materialized tables", description = "Materialized tables as resources")
class FlowController {

  private final PipelineTables pipelines;

  FlowController(PipelineTables pipelines) {
    this.pipelines = pipelines;
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
