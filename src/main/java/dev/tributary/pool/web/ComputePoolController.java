package dev.tributary.pool.web;

import dev.tributary.plan.Placement;
import dev.tributary.pool.ComputePoolDrains;
import dev.tributary.pool.ComputePools;
import dev.tributary.pool.ComputePools.Pool;
import dev.tributary.security.Access;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Compute pools: the Flink clusters tables run on. Admins of every catalog create, change and
 * delete them; every caller reads their names, limits and live capacity (the cluster URLs are shown
 * to those admins only).
 */
@RestController
@RequestMapping("/v1/compute-pools")
@Tag(
    name = "Compute pools",
    description =
        "The Flink clusters tables run on; a table picks one with WITH ('compute-pool' = '...')")
class ComputePoolController {

  private final ComputePools pools;
  private final Placement placement;
  private final ComputePoolDrains drains;

  ComputePoolController(ComputePools pools, Placement placement, ComputePoolDrains drains) {
    this.pools = pools;
    this.placement = placement;
    this.drains = drains;
  }

  @Schema(name = "ComputePoolDrainRequest")
  record DrainRequest(@Schema(description = "The pool to move the tables to") String to) {}

  @PostMapping("/{name}/drain")
  @Operation(
      operationId = "drainComputePool",
      summary = "Move every table off a compute pool, one at a time (admin of every catalog)",
      description =
          "Each table gets ALTER MATERIALIZED TABLE ... SET ('compute-pool' = to): its job stops"
              + " with a savepoint and starts from it on the new pool; the next table moves once"
              + " that job runs. GET the pool to follow the drain; it ends when no table is"
              + " left.")
  @ApiResponse(responseCode = "202", description = "The drain has started")
  ResponseEntity<ComputePoolDrains.Drain> drain(
      @PathVariable String name, @RequestBody DrainRequest request) {
    Access.requireGlobalAdmin();
    return ResponseEntity.accepted().body(drains.start(name, request.to()));
  }

  @Schema(name = "ComputePoolSpec", description = "What a PUT of a compute pool sets")
  record PoolSpec(
      @Schema(description = "The cluster's JobManager REST URL", example = "http://flink-b:8081")
          URI restUrl,
      @Schema(description = "The cluster's SQL Gateway URL", example = "http://flink-b-gw:8083")
          URI sqlGatewayUrl,
      @Schema(
              description =
                  "The parallelism jobs are submitted with there (each takes that many slots);"
                      + " absent: the cluster's parallelism.default")
          Integer parallelism,
      @Schema(
              description =
                  "The most task slots the jobs of Tributary may take on the cluster; absent: as"
                      + " many as it has")
          Integer maxSlots) {}

  @Schema(
      name = "ComputePoolCapacity",
      description = "The pool's cluster as its JobManager sees it now")
  record Capacity(
      @Schema(description = "UP, or UNREACHABLE with the error") String health,
      String error,
      @Schema(description = "The cluster's task slots") Integer slotsTotal,
      @Schema(description = "The cluster's free task slots") Integer slotsAvailable,
      @Schema(description = "Slots taken by live jobs of Tributary there") Integer slotsUsed,
      @Schema(
              description =
                  "Slots a new job of Tributary may take: the smaller of the cluster's"
                      + " free slots and what maxSlots leaves")
          Integer slotsFree,
      @Schema(description = "Slots each job of Tributary takes there") Integer jobParallelism,
      @Schema(description = "Live jobs of Tributary there") Integer jobs) {}

  @Schema(name = "ComputePool")
  record PoolResponse(
      String name,
      @Schema(description = "True for default: the cluster configured with tributary.flink.*")
          boolean configured,
      @Schema(description = "Shown to admins of every catalog only") URI restUrl,
      @Schema(description = "Shown to admins of every catalog only") URI sqlGatewayUrl,
      Integer parallelism,
      Integer maxSlots,
      @Schema(description = "Tables placed on the pool or running there (up to 100 named)")
          List<String> tables,
      Capacity capacity,
      @Schema(description = "A drain under way: its target, tables moved and left, the last error")
          ComputePoolDrains.Drain drain,
      String createdBy,
      Instant createdAt,
      Instant updatedAt) {}

  @GetMapping
  @Operation(
      operationId = "listComputePools",
      summary = "Every compute pool with its live capacity",
      description = "default first: the configured cluster.")
  List<PoolResponse> list() {
    return pools.list().stream().map(this::response).toList();
  }

  @GetMapping("/{name}")
  @Operation(operationId = "getComputePool", summary = "One compute pool with its live capacity")
  PoolResponse get(@PathVariable String name) {
    return response(pools.get(name));
  }

  @PutMapping("/{name}")
  @Operation(
      operationId = "putComputePool",
      summary = "Create or change a compute pool (admin of every catalog)",
      description =
          "The name is a DNS label. default is the configured cluster and cannot be put. A change"
              + " of URLs applies to the next call to the cluster; jobs running there stay.")
  @ApiResponse(responseCode = "200", description = "The pool as stored, with its capacity")
  PoolResponse put(@PathVariable String name, @RequestBody PoolSpec spec) {
    Access.requireGlobalAdmin();
    return response(
        pools.put(
            name,
            new ComputePools.Definition(
                spec.restUrl(), spec.sqlGatewayUrl(), spec.parallelism(), spec.maxSlots())));
  }

  @DeleteMapping("/{name}")
  @Operation(
      operationId = "deleteComputePool",
      summary = "Delete a compute pool no table is placed on (admin of every catalog)",
      description = "409 naming the tables while any is placed on the pool or runs there.")
  @ApiResponse(responseCode = "204", description = "Deleted")
  ResponseEntity<Void> delete(@PathVariable String name) {
    Access.requireGlobalAdmin();
    pools.delete(name);
    return ResponseEntity.noContent().build();
  }

  private PoolResponse response(Pool pool) {
    boolean admin = Access.caller().globalAdmin();
    return new PoolResponse(
        pool.name(),
        pool.configured(),
        admin ? pool.restUrl() : null,
        admin ? pool.sqlGatewayUrl() : null,
        pool.parallelism(),
        pool.maxSlots(),
        pools.tablesOn(pool.name(), 100).stream().filter(this::visible).toList(),
        capacity(pool),
        drains.find(pool.name()).orElse(null),
        pool.createdBy(),
        pool.createdAt(),
        pool.updatedAt());
  }

  private boolean visible(String qualifiedName) {
    String[] parts = qualifiedName.split("\\.", 3);
    return Access.sees(parts[0], parts[1]);
  }

  private Capacity capacity(Pool pool) {
    try {
      Placement.Room room = placement.room(pool.name());
      return new Capacity(
          "UP",
          null,
          room.total(),
          room.available(),
          room.used(),
          room.free(),
          room.needed(),
          room.jobs());
    } catch (RuntimeException e) {
      return new Capacity("UNREACHABLE", e.getMessage(), null, null, null, null, null, null);
    }
  }
}
