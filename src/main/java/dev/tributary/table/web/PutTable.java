package dev.tributary.table.web;

import dev.tributary.plan.ChangePlan;
import dev.tributary.plan.ChangePlanner;
import dev.tributary.security.Access;
import dev.tributary.sql.Hints;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Parser;
import dev.tributary.sql.Statement;
import dev.tributary.statement.StatementResult;
import dev.tributary.statement.StatementService;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.Json;
import dev.tributary.system.web.JsonProblems;
import dev.tributary.table.MaterializedTable;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.PipelineTables;
import dev.tributary.table.TableChange;
import dev.tributary.table.web.TableApi.Metadata;
import dev.tributary.table.web.TableApi.PlanResponse;
import dev.tributary.table.web.TableApi.PutRequest;
import dev.tributary.table.web.TableApi.SpecRequest;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Create or update a table from its JSON resource (PUT): the preconditions (If-Match,
 * If-None-Match, metadata.resourceVersion), the plan, a dry run, and the write, in one transaction
 * that refuses a table changed since it was planned. The controller maps HTTP and checks the
 * caller's role; the sources the query reads are checked here, once the definition is read.
 */
@Component
class PutTable {

  private final MaterializedTableService tables;
  private final ChangePlanner planner;
  private final TransactionTemplate transactions;
  private final StatementService statements;
  private final PipelineTables pipelines;

  PutTable(
      MaterializedTableService tables,
      ChangePlanner planner,
      PlatformTransactionManager transactionManager,
      StatementService statements,
      PipelineTables pipelines) {
    this.statements = statements;
    this.pipelines = pipelines;
    this.tables = tables;
    this.planner = planner;
    this.transactions = new TransactionTemplate(transactionManager);
  }

  /** What a PUT did: the plan of a dry run, or the table it created or changed. */
  record Result(PlanResponse dryRun, boolean created, MaterializedTable table) {}

  Result put(ObjectName id, String ifMatch, String ifNoneMatch, PutRequest request) {
    if (request.spec() == null) {
      throw new ApiException(ErrorCode.VALIDATION_FAILED, "'spec' is required");
    }
    requireSameNames(id, request.metadata());
    if (request.spec().statement() != null
        && Parser.parse(request.spec().statement()) instanceof Statement.CreatePipelineTable) {
      return putPipelineTable(id, ifMatch, ifNoneMatch, request);
    }
    MaterializedTableDefinition definition = definition(id, request.spec());
    if (definition != null) {
      Hints.refuse(definition.query());
      Access.requireReadable(definition.query(), id.catalog(), id.database());
    }
    var existing = tables.find(id);
    requirePreconditions(id, existing, ifMatch, ifNoneMatch, request.metadata());
    if (definition != null) {
      definition = planner.placed(id, ChangePlanner.Current.of(existing, tables), definition);
    }
    if (definition == null && existing.isEmpty()) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED, "A new table needs spec.statement or spec.definition");
    }
    MaterializedTableDefinition stored = definition;
    ChangePlan approvedPlan = null;
    if (definition != null) {
      // Planned with no transaction open: it asks Flink, Kafka and the registry.
      String topic =
          existing.map(MaterializedTable::getTopicName).orElseGet(() -> tables.topicFor(id));
      ChangePlan plan =
          planner.plan(id, topic, ChangePlanner.Current.of(existing, tables), definition);
      if (Boolean.TRUE.equals(request.dryRun())) {
        return new Result(new PlanResponse(true, plan), false, null);
      }
      approvedPlan = ChangePlanner.approved(plan);
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
    ChangePlan approved = approvedPlan;
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
                planner.requireQuotaAtCommit(id, approved, toStore);
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
    return new Result(null, created, tables.get(id));
  }

  /**
   * If-None-Match: * (only if absent), If-Match and metadata.resourceVersion (only if it is at that
   * version) against the resource {@code id} as read now.
   */
  static void requirePreconditions(
      ObjectName id,
      Optional<MaterializedTable> existing,
      String ifMatch,
      String ifNoneMatch,
      Map<String, Object> metadata) {
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
    Long expected = expectedVersion(ifMatch, metadata);
    if (existing.isPresent()
        && expected != null
        && existing.get().getResourceVersion() != expected) {
      throw new ApiException(
          ifMatch != null ? ErrorCode.PRECONDITION_FAILED : ErrorCode.CONFLICT,
          "Stale resourceVersion "
              + expected
              + "; "
              + id
              + " is at "
              + existing.get().getResourceVersion()
              + ". Read it again and retry",
          Map.of("resourceVersion", existing.get().getResourceVersion()));
    }
  }

  /**
   * A pipeline table's statement ({@code CREATE STREAMING TABLE}, {@code CREATE TABLE ... [FLOW
   * ...]}): applied as {@code apply} applies a declared file, so it is created when absent, left as
   * it is when it is there as given, and a 409 when it is there otherwise (its definition is not
   * changed in place; its flows are resources of their own). {@code spec.stopped} suspends or
   * resumes its flows.
   */
  private Result putPipelineTable(
      ObjectName id, String ifMatch, String ifNoneMatch, PutRequest request) {
    Statement.CreatePipelineTable statement =
        (Statement.CreatePipelineTable) Parser.parse(request.spec().statement());
    requireNamed(statement.name(), id);
    if (request.spec().definition() != null) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED,
          "A pipeline table is declared by spec.statement alone, not spec.definition");
    }
    requirePreconditions(id, tables.find(id), ifMatch, ifNoneMatch, request.metadata());
    return applied(
        Statement.CreatePipelineTable.class,
        id,
        request,
        expectedVersion(ifMatch, request.metadata()),
        stop -> tables.alter(id, stop ? new Statement.Suspend() : new Statement.Resume(Map.of())),
        () -> tables.get(id));
  }

  /**
   * A flow of pipeline table {@code table} from its {@code CREATE FLOW} statement, applied as a
   * declared flow: created when absent, left as it is when it is there as given, and a 409 when it
   * is there otherwise (DELETE it, then PUT it). {@code spec.stopped} suspends or resumes it.
   */
  Result putFlow(
      ObjectName table, String flow, String ifMatch, String ifNoneMatch, PutRequest request) {
    if (request.spec() == null || request.spec().statement() == null) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED, "A flow is declared by spec.statement (a CREATE FLOW)");
    }
    if (request.spec().definition() != null) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED,
          "A flow is declared by spec.statement alone, not spec.definition");
    }
    ObjectName id = new ObjectName(table.catalog(), table.database(), flow);
    requireSameNames(id, request.metadata());
    if (!(Parser.parse(request.spec().statement()) instanceof Statement.CreateFlow statement)) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED, "spec.statement must be a CREATE FLOW statement");
    }
    ObjectName target = statement.target().resolve(table.catalog(), table.database());
    if (!statement.name().name().equals(flow) || !target.equals(table)) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED,
          "spec.statement creates flow "
              + statement.name().name()
              + " into "
              + target
              + " but the request's path names flow "
              + flow
              + " of "
              + table);
    }
    Optional<MaterializedTable> existing =
        pipelines
            .findFlow(id)
            .filter(f -> pipelines.pipelineTable(table).getId().equals(f.getFlowOf()));
    requirePreconditions(id, existing, ifMatch, ifNoneMatch, request.metadata());
    return applied(
        Statement.CreateFlow.class,
        table,
        request,
        expectedVersion(ifMatch, request.metadata()),
        stop -> pipelines.suspendFlow(id, stop),
        () -> pipelines.flowOf(table, flow));
  }

  /**
   * Applies spec.statement in {@code in}'s database as a declared object; a dry run answers its
   * plan. Then spec.stopped, if given, suspends or resumes what it declares, in a transaction that
   * first checks the version the request expects ({@code expected}, null: any) again: the apply
   * changes nothing already there, so a change made by another request since the preconditions were
   * checked is a 412 here, not a suspend or resume over it.
   */
  private Result applied(
      Class<? extends Statement> kind,
      ObjectName in,
      PutRequest request,
      Long expected,
      Consumer<Boolean> stopped,
      Supplier<MaterializedTable> row) {
    boolean dryRun = Boolean.TRUE.equals(request.dryRun());
    StatementResult result =
        statements.apply(kind, request.spec().statement(), in.catalog(), in.database(), dryRun);
    if (dryRun) {
      return new Result(new PlanResponse(true, result.plan()), false, null);
    }
    boolean created = "CREATED".equals(result.outcome());
    if (request.spec().stopped() != null) {
      transactions.executeWithoutResult(
          tx -> {
            MaterializedTable now = row.get();
            if (expected != null && !created && now.getResourceVersion() != expected) {
              throw new ApiException(
                  ErrorCode.PRECONDITION_FAILED,
                  now.getName()
                      + " changed since the request's preconditions were checked: it is at"
                      + " resourceVersion "
                      + now.getResourceVersion()
                      + ", not "
                      + expected,
                  Map.of("resourceVersion", now.getResourceVersion()));
            }
            stopped.accept(request.spec().stopped());
          });
    }
    return new Result(null, created, row.get());
  }

  /** The table a statement creates must be the one of the request's path. */
  private static void requireNamed(ObjectName written, ObjectName id) {
    ObjectName named = written.resolve(id.catalog(), id.database());
    if (!named.equals(id)) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED,
          "spec.statement creates "
              + named
              + " but the request's path names "
              + id
              + "; a PUT changes the table of its path");
    }
  }

  private MaterializedTableDefinition definition(ObjectName id, SpecRequest spec) {
    if (spec.statement() != null) {
      Statement statement = Parser.parse(spec.statement());
      if (statement instanceof Statement.CreateMaterializedTable create) {
        requireNamed(create.name(), id);
        return create.definition();
      }
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED,
          "spec.statement must be a CREATE [OR ALTER] MATERIALIZED TABLE or a pipeline table's"
              + " CREATE [STREAMING] TABLE, not "
              + statement.kind());
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

  /**
   * The resourceVersion a request expects: If-Match, else metadata.resourceVersion; null for any.
   */
  static Long expectedVersion(String ifMatch, Map<String, Object> metadata) {
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
}
