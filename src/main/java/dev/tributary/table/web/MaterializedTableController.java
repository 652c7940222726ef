package dev.tributary.table.web;

import dev.tributary.plan.ChangePlan;
import dev.tributary.plan.ChangePlanner;
import dev.tributary.port.SchemaRegistry;
import dev.tributary.port.Topics;
import dev.tributary.security.Access;
import dev.tributary.security.AuditContext;
import dev.tributary.security.Role;
import dev.tributary.sql.Hints;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Parser;
import dev.tributary.sql.Statement;
import dev.tributary.sql.TableSchema;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.Json;
import dev.tributary.system.web.JsonProblems;
import dev.tributary.table.Freshness;
import dev.tributary.table.MaterializedTable;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.MaterializedTableVersion;
import dev.tributary.table.Phase;
import dev.tributary.table.RecordValues;
import dev.tributary.table.TableChange;
import dev.tributary.table.TableRefresh;
import dev.tributary.table.TableSpec;
import dev.tributary.table.TableStatus;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.lang.reflect.RecordComponent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import tools.jackson.databind.JsonNode;

/**
 * Materialized tables as JSON resources, for CI pipelines and Terraform-style clients: list, get,
 * create-or-update with optimistic concurrency, delete, versions, events and a preview of rows.
 */
@RestController
@RequestMapping("/v1/catalogs/{catalog}/databases/{database}/materialized-tables")
@Tag(name = "Materialized tables", description = "Materialized tables as resources")
class MaterializedTableController {

  /** One operation in the API document: the list, and with follow=true the live stream. */
  static final String EVENTS_DESCRIPTION =
      "Without follow, the table's event log as JSON. With follow=true, a text/event-stream of"
          + " every event of the table and its flows once, in order: those already written (after"
          + " Last-Event-ID or the after parameter when given), then each as it is written. Each"
          + " SSE event is named 'event', its id is the event's id and its data the event as JSON"
          + " with the table or flow it is about.";

  private final MaterializedTableService tables;
  private final ChangePlanner planner;
  private final Topics topics;
  private final SchemaRegistry registry;
  private final TransactionTemplate transactions;
  private final Freshness freshness;
  private final EventStreams streams;

  MaterializedTableController(
      MaterializedTableService tables,
      ChangePlanner planner,
      Topics topics,
      SchemaRegistry registry,
      PlatformTransactionManager transactionManager,
      Freshness freshness,
      EventStreams streams) {
    this.streams = streams;
    this.freshness = freshness;
    this.tables = tables;
    this.planner = planner;
    this.topics = topics;
    this.registry = registry;
    this.transactions = new TransactionTemplate(transactionManager);
  }

  @GetMapping
  @Operation(
      operationId = "listMaterializedTables",
      summary = "List materialized tables, optionally by phase, a page at a time")
  PageResponse list(
      @PathVariable String catalog,
      @PathVariable String database,
      @RequestParam(required = false) Phase phase,
      @RequestParam(defaultValue = "0") int page,
      @RequestParam(defaultValue = "50") int size) {
    Access.require(Role.VIEWER, catalog, database);
    if (page < 0 || size < 1 || size > 500) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED, "page must be >= 0 and size between 1 and 500");
    }
    List<MaterializedTable> all =
        tables.list(catalog, database).stream()
            .filter(t -> phase == null || t.getPhase() == phase)
            .toList();
    List<Resource> items =
        all.stream().skip((long) page * size).limit(size).map(this::resource).toList();
    return new PageResponse(items, page, size, all.size());
  }

  @GetMapping("/{name}")
  @Operation(
      operationId = "getMaterializedTable",
      summary = "Get one materialized table: spec, status, conditions, topic, subjects, job")
  ResponseEntity<Resource> get(
      @PathVariable String catalog, @PathVariable String database, @PathVariable String name) {
    Access.require(Role.VIEWER, catalog, database);
    MaterializedTable table = tables.get(new ObjectName(catalog, database, name));
    return withEtag(HttpStatus.OK, resource(table));
  }

  @PutMapping("/{name}")
  @Operation(
      operationId = "putMaterializedTable",
      summary = "Create or update from JSON",
      description =
          "spec.statement (a CREATE [OR ALTER] MATERIALIZED TABLE) or spec.definition (as GET returns it);"
              + " spec.stopped suspends or resumes. Send the resourceVersion you read (If-Match or metadata.resourceVersion):"
              + " a stale one is refused with 409.")
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
    if (request.spec() == null) {
      throw new ApiException(ErrorCode.VALIDATION_FAILED, "'spec' is required");
    }
    requireSameNames(id, request.metadata());
    MaterializedTableDefinition definition = definition(id, request.spec());
    if (definition != null) {
      Hints.refuse(definition.query());
      Access.requireReadable(definition.query(), catalog, database);
    }
    var existing = tables.find(id);
    if (ifNoneMatch != null && ifNoneMatch.strip().equals("*") && existing.isPresent()) {
      throw new ApiException(
          ErrorCode.PRECONDITION_FAILED,
          id
              + " exists (If-None-Match: *); it is at resourceVersion "
              + existing.get().getResourceVersion(),
          Map.of("resourceVersion", existing.get().getResourceVersion()));
    }
    if (ifMatch != null && !ifMatch.strip().equals("*") && existing.isEmpty()) {
      throw new ApiException(
          ErrorCode.PRECONDITION_FAILED, id + " does not exist, so If-Match cannot match");
    }
    Long expected = expectedVersion(ifMatch, request.metadata());
    if (existing.isPresent()
        && expected != null
        && existing.get().getResourceVersion() != expected) {
      throw new ApiException(
          ifMatch != null ? ErrorCode.PRECONDITION_FAILED : ErrorCode.CONFLICT,
          "Stale resourceVersion "
              + expected
              + "; the table is at "
              + existing.get().getResourceVersion()
              + ". Read it again and retry",
          Map.of("resourceVersion", existing.get().getResourceVersion()));
    }
    if (definition == null && existing.isEmpty()) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED, "A new table needs spec.statement or spec.definition");
    }
    MaterializedTableDefinition stored = definition;
    if (definition != null) {
      // Planned with no transaction open: it asks Flink, Kafka and the registry.
      String topic =
          existing.map(MaterializedTable::getTopicName).orElseGet(() -> tables.topicFor(id));
      ChangePlan plan =
          planner.plan(id, topic, ChangePlanner.Current.of(existing, tables), definition);
      if (Boolean.TRUE.equals(request.dryRun())) {
        return ResponseEntity.ok(new PlanResponse(true, plan));
      }
      ChangePlanner.approved(plan);
      if (plan.autoFallback() != null) {
        stored = ChangePlanner.asFull(definition); // stored as planned
      }
    } else if (Boolean.TRUE.equals(request.dryRun())) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED,
          "A dry run plans a definition: give spec.statement or spec.definition");
    }
    Long planned = existing.map(MaterializedTable::getResourceVersion).orElse(null);
    MaterializedTableDefinition toStore = stored;
    // 201 only to the request whose insert made the row; one that raced it and found the row is
    // told what it did to it.
    boolean created =
        transactions.execute(
            tx -> {
              // What was planned against must still be there: a change since is a 409, not a write
              // over a plan that no longer holds.
              Long now = tables.find(id).map(MaterializedTable::getResourceVersion).orElse(null);
              if (!Objects.equals(planned, now)) {
                throw new ApiException(
                    ErrorCode.CONFLICT,
                    id + " changed while the request was planned; read it again and retry",
                    now == null ? Map.of() : Map.of("resourceVersion", now));
              }
              boolean inserted = false;
              if (toStore != null) {
                inserted =
                    tables.create(id, toStore, true, false).outcome()
                        == TableChange.Outcome.CREATED;
              }
              if (request.spec().stopped() != null) {
                tables.alter(
                    id,
                    request.spec().stopped()
                        ? new Statement.Suspend()
                        : new Statement.Resume(Map.of()));
              }
              return inserted;
            });
    return withEtag(created ? HttpStatus.CREATED : HttpStatus.OK, resource(tables.get(id)));
  }

  @DeleteMapping("/{name}")
  @Operation(
      operationId = "dropMaterializedTable",
      summary =
          "Drop: the job is cancelled, topic and subjects deleted, then the definition removed (kept in history)")
  ResponseEntity<Resource> delete(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @RequestHeader(value = HttpHeaders.IF_MATCH, required = false) String ifMatch) {
    ObjectName id = new ObjectName(catalog, database, name);
    AuditContext.attempt("DELETE_MATERIALIZED_TABLE", id.toString());
    Access.require(Role.DEVELOPER, catalog, database);
    Long expected = expectedVersion(ifMatch, null);
    if (expected != null) {
      // Checked again in the drop's transaction: a change in between is not dropped unseen.
      tables.drop(id, false, expected);
    } else {
      tables.drop(id, false);
    }
    return ResponseEntity.accepted().body(resource(tables.get(id)));
  }

  @GetMapping("/{name}/versions")
  @Operation(
      operationId = "listTableVersions",
      summary = "Every definition the table has had; still answers after the table is dropped")
  List<VersionResponse> versions(
      @PathVariable String catalog, @PathVariable String database, @PathVariable String name) {
    Access.require(Role.VIEWER, catalog, database);
    return tables.versions(tables.historyOf(new ObjectName(catalog, database, name))).stream()
        .map(VersionResponse::of)
        .toList();
  }

  @GetMapping("/{name}/versions/{version}")
  @Operation(operationId = "getTableVersion", summary = "One version, with its SHOW CREATE text")
  VersionResponse version(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @PathVariable long version) {
    Access.require(Role.VIEWER, catalog, database);
    return tables.versions(tables.historyOf(new ObjectName(catalog, database, name))).stream()
        .filter(v -> v.version() == version)
        .findFirst()
        .map(VersionResponse::of)
        .orElseThrow(
            () ->
                new ApiException(
                    ErrorCode.NOT_FOUND,
                    "Version "
                        + version
                        + " of "
                        + catalog
                        + "."
                        + database
                        + "."
                        + name
                        + " does not exist"));
  }

  @GetMapping("/{name}/events")
  @Operation(
      operationId = "listTableEvents",
      summary =
          "What the reconciler did to the table, and why (follow=true: live, as Server-Sent"
              + " Events); still answers after the table is dropped",
      description = EVENTS_DESCRIPTION)
  List<EventResponse> events(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @Parameter(description = "true: a live text/event-stream instead of the list")
          @RequestParam(required = false)
          Boolean follow) {
    Access.require(Role.VIEWER, catalog, database);
    return tables.events(tables.historyOf(new ObjectName(catalog, database, name))).stream()
        .map(e -> new EventResponse(e.getAt(), e.getType().name(), e.getReason(), e.getMessage()))
        .toList();
  }

  @GetMapping(
      value = "/{name}/events",
      params = "follow=true",
      produces = MediaType.TEXT_EVENT_STREAM_VALUE)
  @Operation(
      operationId = "listTableEvents",
      summary =
          "What the reconciler did to the table, and why (follow=true: live, as Server-Sent"
              + " Events); still answers after the table is dropped",
      description = EVENTS_DESCRIPTION)
  SseEmitter followEvents(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @RequestParam(required = false) Long after,
      @RequestHeader(value = "Last-Event-ID", required = false) String lastEventId) {
    Access.require(Role.VIEWER, catalog, database);
    return streams.table(
        new ObjectName(catalog, database, name), EventStreams.startAfter(lastEventId, after));
  }

  @GetMapping("/{name}/refreshes")
  @Operation(
      operationId = "listTableRefreshes",
      summary =
          "The refreshes of a FULL table, newest first: trigger, slot, partition, source bounds,"
              + " job, rows and tombstones written, outcome; still answers after the table is"
              + " dropped")
  RefreshPage refreshes(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable String name,
      @RequestParam(defaultValue = "0") int page,
      @RequestParam(defaultValue = "20") int size) {
    Access.require(Role.VIEWER, catalog, database);
    if (page < 0 || size < 1 || size > 500) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED, "page must be >= 0 and size between 1 and 500");
    }
    UUID id = tables.historyOf(new ObjectName(catalog, database, name));
    return new RefreshPage(
        tables.refreshes(id, page * size, size), page, size, tables.refreshCount(id));
  }

  @PostMapping("/{name}/refreshes")
  @Operation(
      operationId = "refreshTable",
      summary =
          "Refresh a FULL table now (ALTER ... REFRESH [PARTITION]): the whole table, or only the"
              + " partition given; 409 while another refresh of the table runs. For a pipeline"
              + " table, a full refresh (REFRESH STREAMING TABLE ... FULL): the topic is emptied"
              + " and every flow runs again from the beginning, INSERT ONCE flows included")
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
          .body(new FullRefreshResponse(id.toString(), tables.fullRefresh(id).message()));
    }
    return ResponseEntity.accepted().body(tables.refresh(id, partition));
  }

  @GetMapping("/{name}/flows")
  @Operation(
      operationId = "listTableFlows",
      summary =
          "The flows of a pipeline table, each with its own job, phase, checkpoints and (for"
              + " INSERT ONCE) its one run")
  List<Resource> flows(
      @PathVariable String catalog, @PathVariable String database, @PathVariable String name) {
    Access.require(Role.VIEWER, catalog, database);
    MaterializedTable table = tables.pipelineTable(new ObjectName(catalog, database, name));
    return tables.flows(table).stream().map(this::resource).toList();
  }

  @GetMapping("/{name}/expectations")
  @Operation(
      operationId = "getTableExpectations",
      summary =
          "Rows that passed and failed each expectation (CONSTRAINT ... EXPECT), per flow of a"
              + " pipeline table or for the materialized table's job, summed over its jobs")
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
              + " id of each record) and shown as JSON (committed rows only)")
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

  private MaterializedTableDefinition definition(ObjectName id, SpecRequest spec) {
    if (spec.statement() != null) {
      Statement statement = Parser.parse(spec.statement());
      if (statement instanceof Statement.CreateMaterializedTable create) {
        ObjectName named = create.name().resolve(id.catalog(), id.database());
        if (!named.equals(id)) {
          throw new ApiException(
              ErrorCode.VALIDATION_FAILED,
              "spec.statement creates "
                  + named
                  + " but the request's path names "
                  + id
                  + "; a PUT changes the table of its path");
        }
        return create.definition();
      }
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED,
          "spec.statement must be a CREATE [OR ALTER] MATERIALIZED TABLE, not " + statement.kind());
    }
    if (spec.definition() != null) {
      try {
        return Json.read(Json.write(spec.definition()), MaterializedTableDefinition.class);
      } catch (RuntimeException e) {
        throw new ApiException(
            ErrorCode.VALIDATION_FAILED,
            "spec.definition cannot be read: " + JsonProblems.describe(e));
      }
    }
    return null;
  }

  /** The names of metadata, when given, must be those of the path. */
  private static void requireSameNames(ObjectName id, Map<String, Object> metadata) {
    if (metadata == null) {
      return;
    }
    for (String key : metadata.keySet()) {
      if (!METADATA_FIELDS.contains(key)) {
        throw new ApiException(
            ErrorCode.VALIDATION_FAILED,
            "metadata has no field '" + key + "'; it has " + String.join(", ", METADATA_FIELDS));
      }
    }
    Map<String, String> path =
        Map.of("catalog", id.catalog(), "database", id.database(), "name", id.name());
    path.forEach(
        (field, value) -> {
          Object given = metadata.get(field);
          if (given != null && !value.equals(given)) {
            throw new ApiException(
                ErrorCode.VALIDATION_FAILED,
                "metadata." + field + " is '" + given + "' but the path names '" + value + "'");
          }
        });
  }

  private static final List<String> METADATA_FIELDS =
      Arrays.stream(Metadata.class.getRecordComponents()).map(RecordComponent::getName).toList();

  private static Long expectedVersion(String ifMatch, Map<String, Object> metadata) {
    String value =
        ifMatch != null
            ? ifMatch.replace("\"", "").replace("W/", "").strip()
            : metadata != null && metadata.get("resourceVersion") != null
                ? String.valueOf(metadata.get("resourceVersion"))
                : null;
    if (value == null || value.equals("*")) {
      return null;
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED, "resourceVersion must be a number, was '" + value + "'");
    }
  }

  private Resource resource(MaterializedTable t) {
    TableSpec spec = tables.spec(t);
    Metadata metadata =
        new Metadata(
            t.getDatabase().getCatalog().getName(),
            t.getDatabase().getName(),
            t.getName(),
            t.getId().toString(),
            t.getGeneration(),
            t.getResourceVersion(),
            t.getCreatedAt(),
            t.getUpdatedAt());
    SpecResponse specResponse =
        new SpecResponse(
            MaterializedTableService.showCreate(t.objectName(), spec),
            spec.definition(),
            spec.stopped());
    TableStatus status = t.status();
    return new Resource(
        "tributary.dev/v1",
        switch (spec.kind()) {
          case MATERIALIZED_TABLE -> "MaterializedTable";
          case PIPELINE_TABLE -> "PipelineTable";
          case FLOW -> "Flow";
        },
        metadata,
        specResponse,
        new StatusResponse(
            t.isDeletionRequested() ? Phase.DELETING : t.getPhase(),
            t.getObservedGeneration(),
            freshness.of(t, spec),
            status));
  }

  private static ResponseEntity<Resource> withEtag(HttpStatus status, Resource resource) {
    return ResponseEntity.status(status)
        .eTag("\"" + resource.metadata().resourceVersion() + "\"")
        .body(resource);
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

  record PutRequest(Map<String, Object> metadata, SpecRequest spec, Boolean dryRun) {}

  /** The answer of a dry run: the plan, nothing stored or touched. */
  record PlanResponse(boolean dryRun, ChangePlan plan) {}

  record SpecRequest(String statement, Map<String, Object> definition, Boolean stopped) {}

  record Resource(
      String apiVersion,
      String kind,
      Metadata metadata,
      SpecResponse spec,
      StatusResponse status) {}

  record Metadata(
      String catalog,
      String database,
      String name,
      String uid,
      long generation,
      long resourceVersion,
      Instant createdAt,
      Instant updatedAt) {}

  record SpecResponse(String statement, MaterializedTableDefinition definition, boolean stopped) {}

  record StatusResponse(
      Phase phase, long observedGeneration, Freshness.Summary refresh, TableStatus details) {}

  record RefreshRequest(Map<String, String> partition) {}

  record RefreshPage(List<TableRefresh> items, int page, int size, long total) {}

  record PageResponse(List<Resource> items, int page, int size, long total) {}

  record VersionResponse(
      long version,
      String qualifiedName,
      String statement,
      Instant createdAt,
      String outcome,
      String failure) {
    static VersionResponse of(MaterializedTableVersion v) {
      return new VersionResponse(
          v.version(),
          v.getQualifiedName(),
          v.getDefinition(),
          v.getCreatedAt(),
          v.getOutcome(),
          v.getFailure());
    }
  }

  record EventResponse(Instant at, String type, String reason, String message) {}

  record PreviewRow(int partition, long offset, Instant timestamp, JsonNode key, JsonNode value) {}

  record PreviewResponse(String topic, List<PreviewRow> rows) {}

  /**
   * One expectation of one writer of the table (a flow, or the materialized table's job: flow
   * null): rows that passed and failed it, as its jobs' counters were last read ({@code asOf}); all
   * three null while no counter was ever read (an INSERT ONCE run that finished between two reads
   * of the JobManager's metrics is one: its counters are gone with its tasks).
   */
  record ExpectationCount(
      String flow,
      String expectation,
      String expression,
      String onViolation,
      Long passedRecords,
      Long failedRecords,
      Instant asOf) {}

  record ExpectationsResponse(String table, List<ExpectationCount> expectations) {}

  record FullRefreshResponse(String table, String message) {}
}
