package dev.tributary.table.web;

import dev.tributary.port.SchemaRegistry;
import dev.tributary.port.Topics;
import dev.tributary.security.Access;
import dev.tributary.security.Role;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.TableSchema;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.Json;
import dev.tributary.system.Paging;
import dev.tributary.system.Paging.Page;
import dev.tributary.system.PagingDocs;
import dev.tributary.table.MaterializedTable;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.PipelineTables;
import dev.tributary.table.RecordValues;
import dev.tributary.table.TableSpec;
import dev.tributary.table.TableStatus;
import dev.tributary.table.web.TableApi.ExpectationCount;
import dev.tributary.table.web.TableApi.ExpectationsResponse;
import dev.tributary.table.web.TableApi.PreviewResponse;
import dev.tributary.table.web.TableApi.PreviewRow;
import dev.tributary.table.web.TableApi.Resource;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;

/** What a table holds and runs: its flows, its expectations' counts, a preview of its topic. */
@RestController
@RequestMapping("/v1/catalogs/{catalog}/databases/{database}/materialized-tables")
@Tag(name = "Materialized tables", description = "Materialized tables as resources")
class TableDataController {

  private final MaterializedTableService tables;
  private final PipelineTables pipelines;
  private final TableResources resources;
  private final Topics topics;
  private final SchemaRegistry registry;

  TableDataController(
      MaterializedTableService tables,
      PipelineTables pipelines,
      TableResources resources,
      Topics topics,
      SchemaRegistry registry) {
    this.tables = tables;
    this.pipelines = pipelines;
    this.resources = resources;
    this.topics = topics;
    this.registry = registry;
  }

  @GetMapping("/{name}/flows")
  @Operation(
      operationId = "listTableFlows",
      summary =
          "The flows of a pipeline table, each with its own job, phase, checkpoints and (for"
              + " INSERT ONCE) its one run",
      description = "Each flow in the same envelope as a table (kind Flow), by name.")
  Page<Resource> flows(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @Parameter(description = PagingDocs.LIMIT) @RequestParam(required = false) Integer limit,
      @Parameter(description = PagingDocs.TOKEN) @RequestParam(required = false) String pageToken) {
    Access.require(Role.VIEWER, catalog, database);
    MaterializedTable table = pipelines.pipelineTable(new ObjectName(catalog, database, name));
    Page<MaterializedTable> page =
        Paging.page(
            "flows:" + table.getId(),
            tables.flows(table),
            MaterializedTable::getName,
            Paging.BY_NAME,
            limit,
            pageToken);
    return new Page<>(page.items().stream().map(resources::of).toList(), page.nextPageToken());
  }

  @GetMapping("/{name}/expectations")
  @Operation(
      operationId = "getTableExpectations",
      summary =
          "Rows that passed and failed each expectation (CONSTRAINT ... EXPECT), per flow of a"
              + " pipeline table or for the materialized table's job, summed over its jobs",
      description =
          "Counts as the JobManager's metrics last showed them (asOf); null until first read.")
  ExpectationsResponse expectations(
      @PathVariable String catalog, @PathVariable String database, @PathVariable String name) {
    Access.require(Role.VIEWER, catalog, database);
    ObjectName id = new ObjectName(catalog, database, name);
    MaterializedTable table = tables.get(id);
    TableSpec spec = tables.spec(table);
    List<MaterializedTable> writers =
        spec.kind() == TableSpec.Kind.PIPELINE_TABLE ? tables.flows(table) : List.of(table);
    List<ExpectationCount> counts = new ArrayList<>();
    for (MaterializedTable writer : writers) {
      TableSpec writes = tables.spec(writer);
      if (writes.definition() == null || writes.definition().schema() == null) {
        continue;
      }
      TableStatus.Quality quality = writer.status().quality();
      List<TableStatus.Count> totals = quality == null ? List.of() : quality.totals();
      for (TableSchema.Expectation e : writes.definition().schema().expectations()) {
        // Never read (no job ran long enough to report them): unknown, not zero.
        TableStatus.Count c =
            totals.stream().filter(t -> t.name().equals(e.name())).findFirst().orElse(null);
        counts.add(
            new ExpectationCount(
                writes.kind() == TableSpec.Kind.FLOW ? writer.getName() : null,
                e.name(),
                e.expression(),
                e.onViolation() == null ? "KEEP" : e.onViolation().name(),
                c == null ? null : c.passed(),
                c == null ? null : c.failed(),
                c == null ? null : quality.at()));
      }
    }
    return new ExpectationsResponse(id.toString(), counts);
  }

  @GetMapping("/{name}/preview")
  @Operation(
      operationId = "previewTable",
      summary =
          "The latest rows of the backing topic, decoded as written (JSON, or Avro by the schema"
              + " id of each record) and shown as JSON (committed rows only)",
      description =
          "Reads the topic with read_committed isolation; the newest rows of each partition, up to limit.")
  PreviewResponse preview(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @RequestParam(defaultValue = "10") int limit) {
    Access.require(Role.DEVELOPER, catalog, database);
    if (limit < 1 || limit > 1000) {
      throw new ApiException(ErrorCode.VALIDATION_FAILED, "limit must be between 1 and 1000");
    }
    MaterializedTable table = tables.get(new ObjectName(catalog, database, name));
    String topic = table.status().topic();
    if (topic == null) {
      throw new ApiException(
          ErrorCode.CONFLICT,
          table.objectName() + " has no topic yet (phase " + table.getPhase() + ")");
    }
    RecordValues values = new RecordValues(registry);
    List<PreviewRow> rows =
        topics.latest(topic, limit).stream()
            .sorted(Comparator.comparing(Topics.TopicRecord::timestamp))
            .map(
                r ->
                    new PreviewRow(
                        r.partition(),
                        r.offset(),
                        r.timestamp(),
                        json(values, r.key()),
                        json(values, r.value())))
            .toList();
    return new PreviewResponse(topic, rows);
  }

  /** A key or value decoded as written (JSON, or Avro by its schema id) and shown as JSON. */
  private static JsonNode json(RecordValues values, byte[] bytes) {
    Object value;
    try {
      value = values.decode(bytes);
    } catch (RuntimeException e) {
      value = "(cannot be decoded: " + e.getMessage() + ")";
    }
    return value == null ? null : Json.read(Json.write(value), JsonNode.class);
  }
}
