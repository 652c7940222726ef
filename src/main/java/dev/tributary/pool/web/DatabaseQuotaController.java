package dev.tributary.pool.web;

import dev.tributary.pool.ComputePoolQuotas;
import dev.tributary.pool.ComputePoolQuotas.Quota;
import dev.tributary.security.Access;
import dev.tributary.security.Grant;
import dev.tributary.security.Role;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A database's quotas on compute pools: set by an admin of its catalog (a database's own admin may
 * not raise its own limits), read by its viewers.
 */
@RestController
@RequestMapping("/v1/catalogs/{catalog}/databases/{database}/quotas")
@Tag(name = "Compute pools")
class DatabaseQuotaController {

  private final ComputePoolQuotas quotas;

  DatabaseQuotaController(ComputePoolQuotas quotas) {
    this.quotas = quotas;
  }

  @Schema(name = "PoolQuotaSpec")
  record QuotaSpec(
      @Schema(description = "Tables of the database the pool may hold; absent: no limit")
          Integer maxTables,
      @Schema(description = "Task slots the database's jobs may take there; absent: no limit")
          Integer maxSlots) {}

  @GetMapping
  @Operation(operationId = "listQuotas", summary = "The database's quotas, one per compute pool")
  List<Quota> list(@PathVariable String catalog, @PathVariable String database) {
    Access.require(Role.VIEWER, catalog, database);
    return quotas.list(catalog, database);
  }

  @PutMapping("/{pool}")
  @Operation(
      operationId = "putQuota",
      summary = "Set the database's quota on a compute pool (admin of the catalog)",
      description =
          "Checked when a change is submitted: a CREATE or a move that would exceed it gets 409"
              + " QUOTA_EXCEEDED. Tables already there stay.")
  Quota put(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String pool,
      @RequestBody QuotaSpec spec) {
    Access.require(Role.ADMIN, catalog, Grant.ANY);
    return quotas.put(catalog, database, pool, spec.maxTables(), spec.maxSlots());
  }

  @DeleteMapping("/{pool}")
  @Operation(
      operationId = "deleteQuota",
      summary = "Remove the database's quota on a compute pool (admin of the catalog)")
  @ApiResponse(responseCode = "204", description = "Removed")
  ResponseEntity<Void> delete(
      @PathVariable String catalog, @PathVariable String database, @PathVariable String pool) {
    Access.require(Role.ADMIN, catalog, Grant.ANY);
    quotas.delete(catalog, database, pool);
    return ResponseEntity.noContent().build();
  }
}
