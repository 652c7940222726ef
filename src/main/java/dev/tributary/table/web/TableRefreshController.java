package dev.tributary.table.web;

import dev.tributary.security.Access;
import dev.tributary.security.Role;
import dev.tributary.sql.ObjectName;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.Paging;
import dev.tributary.system.Paging.Page;
import dev.tributary.system.PagingDocs;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.PipelineTables;
import dev.tributary.table.RefreshRequests;
import dev.tributary.table.RefreshWaits;
import dev.tributary.table.TableHistory;
import dev.tributary.table.TableRefresh;
import dev.tributary.table.TableSpec;
import dev.tributary.table.Waits;
import dev.tributary.table.web.TableApi.FullRefreshResponse;
import dev.tributary.table.web.TableApi.RefreshRequest;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** A table's refreshes: the runs of a FULL table, manual and full refreshes. */
@RestController
@RequestMapping("/v1/catalogs/{catalog}/databases/{database}/materialized-tables")
@Tag(name = "Materialized tables", description = "Materialized tables as resources")
class TableRefreshController {

  private final MaterializedTableService tables;
  private final PipelineTables pipelines;
  private final TableHistory history;
  private final RefreshRequests refreshRequests;
  private final RefreshWaits waits;

  TableRefreshController(
      MaterializedTableService tables,
      PipelineTables pipelines,
      TableHistory history,
      RefreshRequests refreshRequests,
      RefreshWaits waits) {
    this.tables = tables;
    this.pipelines = pipelines;
    this.history = history;
    this.refreshRequests = refreshRequests;
    this.waits = waits;
  }

  @GetMapping("/{name}/refreshes")
  @Operation(
      operationId = "listTableRefreshes",
      summary =
          "The refreshes of a FULL table, newest first: trigger, slot, partition, source bounds,"
              + " job, rows and tombstones written, outcome; still answers after the table is"
              + " dropped",
      description = "One entry per refresh, newest first, with its outcome; a page at a time.")
  Page<TableRefresh> refreshes(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @Parameter(description = PagingDocs.LIMIT) @RequestParam(required = false) Integer limit,
      @Parameter(description = PagingDocs.TOKEN) @RequestParam(required = false) String pageToken) {
    Access.require(Role.VIEWER, catalog, database);
    UUID id = history.historyOf(new ObjectName(catalog, database, name));
    String list = "refreshes:" + id;
    int size = Paging.limit(limit);
    Long before = Paging.afterNumber(list, pageToken);
    return Paging.fetched(
        list,
        refreshRequests.refreshesBefore(id, before, size + 1),
        size,
        r -> Long.toString(r.number()));
  }

  @GetMapping("/{name}/refreshes/{number}")
  @Operation(
      operationId = "getTableRefresh",
      summary =
          "One refresh of a FULL table; with waitSeconds, answered once it has ended (SUCCEEDED,"
              + " FAILED or CANCELLED) or when the wait is up, whichever is first",
      description =
          "Instead of polling: a CI step that refreshed a table asks with waitSeconds (at most "
              + RefreshWaits.MAX_WAIT_SECONDS
              + ") and, if the refresh is still QUEUED, WAITING or RUNNING when the answer comes,"
              + " asks again. A replica holds a bounded number of waiting requests; beyond it"
              + " the answer is a 429 with Retry-After.")
  TableRefresh refresh(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @PathVariable long number,
      @Parameter(
              description =
                  "Seconds to wait for the refresh to end, 0 to "
                      + RefreshWaits.MAX_WAIT_SECONDS
                      + "; none or 0 answers at once")
          @RequestParam(required = false)
          Integer waitSeconds) {
    Access.require(Role.VIEWER, catalog, database);
    ObjectName table = new ObjectName(catalog, database, name);
    Duration wait = Waits.requested(waitSeconds);
    UUID id = history.historyOf(table);
    TableRefresh refresh =
        wait.isZero()
            ? refreshRequests.refresh(id, number).orElse(null)
            : waits.await(() -> refreshRequests.refresh(id, number).orElse(null), wait);
    if (refresh == null) {
      throw new ApiException(ErrorCode.NOT_FOUND, table + " has no refresh #" + number);
    }
    return refresh;
  }

  @PostMapping("/{name}/refreshes")
  @Operation(
      operationId = "refreshTable",
      summary =
          "Refresh a FULL table now (ALTER ... REFRESH [PARTITION]): the whole table, or only the"
              + " partition given. While another refresh of the table runs, the request waits"
              + " behind it (state WAITING) and runs right after; a request while one waits, or"
              + " while one is queued and not yet started, is answered with that one. For a"
              + " pipeline"
              + " table, a full refresh (REFRESH STREAMING TABLE ... FULL): the topic is emptied"
              + " and every flow runs again from the beginning, INSERT ONCE flows included",
      description =
          "Answers at once: the refresh runs on the cluster's scheduler. A FULL table answers the"
              + " refresh (follow it in the refreshes list); a pipeline table what its full refresh"
              + " does.")
  @ApiResponse(
      responseCode = "202",
      description = "The refresh is under way",
      content =
          @Content(
              mediaType = "application/json",
              schema = @Schema(oneOf = {TableRefresh.class, TableApi.FullRefreshResponse.class})))
  ResponseEntity<?> refresh(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @RequestBody(required = false) RefreshRequest request) {
    Access.require(Role.DEVELOPER, catalog, database);
    ObjectName id = new ObjectName(catalog, database, name);
    Map<String, String> partition =
        request == null || request.partition() == null ? Map.of() : request.partition();
    if (tables.spec(tables.get(id)).kind() == TableSpec.Kind.PIPELINE_TABLE) {
      if (!partition.isEmpty()) {
        throw new ApiException(
            ErrorCode.VALIDATION_FAILED,
            "A pipeline table is refreshed whole (REFRESH STREAMING TABLE ... FULL); it has no"
                + " partitions to refresh");
      }
      return ResponseEntity.accepted()
          .body(new FullRefreshResponse(id.toString(), pipelines.fullRefresh(id).message()));
    }
    return ResponseEntity.accepted().body(tables.refresh(id, partition));
  }
}
