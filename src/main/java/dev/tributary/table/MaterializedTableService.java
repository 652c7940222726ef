package dev.tributary.table;

import dev.tributary.catalog.CatalogDatabase;
import dev.tributary.catalog.CatalogService;
import dev.tributary.security.Access;
import dev.tributary.sql.Clauses;
import dev.tributary.sql.Defaults;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Printer;
import dev.tributary.sql.RefreshSchedule;
import dev.tributary.sql.Statement;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.Json;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Materialized and pipeline tables in the store: create, alter, drop and read them. Every write
 * goes through {@link TableWriter}, which bumps the generation the reconciler acts on, records a
 * version when the definition changed, and logs an event; history is read by {@link TableHistory},
 * refresh requests are made by {@link RefreshRequests}. Names passed in are fully qualified.
 */
@Service
public class MaterializedTableService {

  private final CatalogService catalogs;
  private final MaterializedTableRepository tables;
  private final TableWriter writer;
  private final RefreshRequests refreshRequests;
  private final TopicNames topicNames;

  MaterializedTableService(
      CatalogService catalogs,
      MaterializedTableRepository tables,
      TableWriter writer,
      RefreshRequests refreshRequests,
      TopicNames topicNames) {
    this.catalogs = catalogs;
    this.tables = tables;
    this.writer = writer;
    this.refreshRequests = refreshRequests;
    this.topicNames = topicNames;
  }

  @Transactional
  public TableChange create(
      ObjectName name,
      MaterializedTableDefinition definition,
      boolean orAlter,
      boolean ifNotExists) {
    Optional<MaterializedTable> existing = find(name);
    if (existing.isPresent()) {
      requireNotDeleting(existing.get());
      if (orAlter) {
        return changeDefinition(existing.get(), definition, "Altered");
      }
      if (ifNotExists) {
        return new TableChange(
            existing.get(),
            TableChange.Outcome.SKIPPED,
            "Materialized table " + name + " already exists; nothing done");
      }
      throw new ApiException(
          ErrorCode.ALREADY_EXISTS,
          "Materialized table "
              + name
              + " already exists; use CREATE OR ALTER MATERIALIZED TABLE to change it");
    }
    return insert(name, TableSpec.of(definition));
  }

  /**
   * A pipeline table and its first flow (named as the table): {@code table} is what its topic
   * holds, {@code job} what the flow runs, both as planned at submit.
   */
  @Transactional
  public TableChange createPipelineTable(
      ObjectName name,
      Statement.CreatePipelineTable statement,
      MaterializedTableDefinition table,
      MaterializedTableDefinition job) {
    if (find(name).isPresent()) {
      throw new ApiException(ErrorCode.ALREADY_EXISTS, "Table " + name + " already exists");
    }
    if (statement.flow() == null) {
      // CREATE STREAMING TABLE without a query: its first flow gives it columns and a topic.
      TableChange declared = insert(name, TableSpec.of(statement, null));
      return new TableChange(
          declared.table(),
          TableChange.Outcome.CREATED,
          "Streaming table "
              + name
              + " declared; it gets its topic and subjects with its first flow (CREATE FLOW ..."
              + " INTO "
              + name.name()
              + ")");
    }
    requireFlowNameFree(name);
    TableChange created = insert(name, TableSpec.of(statement, table));
    insertFlow(created.table(), Statement.CreateFlow.of(name, statement.flow()), job);
    return new TableChange(
        created.table(),
        TableChange.Outcome.CREATED,
        "Pipeline table "
            + name
            + " created with flow "
            + name.name()
            + (statement.flow().once() ? " (INSERT ONCE)" : "")
            + ": topic, subjects, and a job for the flow");
  }

  /**
   * A flow into pipeline table {@code target}, running {@code job} (planned at submit); the first
   * flow of a declared streaming table also gives the table its definition, {@code table}.
   */
  @Transactional
  public TableChange addFlow(
      ObjectName target,
      Statement.CreateFlow flow,
      MaterializedTableDefinition job,
      MaterializedTableDefinition table) {
    MaterializedTable stored = pipelineTable(target);
    ObjectName flowName = new ObjectName(target.catalog(), target.database(), flow.name().name());
    requireFlowNameFree(flowName);
    requireFlowAllowed(stored, flow);
    TableSpec spec = spec(stored);
    if (spec.definition() == null) {
      write(
          stored,
          new TableSpec(spec.kind(), table, spec.pipeline(), spec.flows(), spec.stopped()),
          true,
          "Defined",
          "Columns and key from the first flow, " + flowName.name());
    }
    MaterializedTable row = insertFlow(stored, flow.withNames(flowName, target), job);
    writer.event(stored, TableEvent.Type.NORMAL, "FlowAdded", "Flow " + flowName.name() + " added");
    return new TableChange(
        row,
        TableChange.Outcome.CREATED,
        "Flow "
            + flowName.name()
            + " into "
            + target
            + " created"
            + (flow.once() ? " (INSERT ONCE: runs once)" : "")
            + (flow.cdc() != null ? " (AUTO CDC: the latest row per key)" : "")
            + "; its job starts, the table's other flows run on");
  }

  /**
   * An AUTO CDC flow keeps the latest row per key, so it is its table's only flow: 409 for a CDC
   * flow into a table with flows, and for any flow into a table with a CDC flow.
   */
  @Transactional(readOnly = true)
  public void requireFlowAllowed(MaterializedTable table, Statement.CreateFlow flow) {
    List<MaterializedTable> others =
        flows(table).stream().filter(f -> !f.isDeletionRequested()).toList();
    boolean cdcThere = others.stream().anyMatch(f -> spec(f).flowStatement().cdc() != null);
    if ((flow.cdc() != null && !others.isEmpty()) || cdcThere) {
      throw new ApiException(
          ErrorCode.CONFLICT,
          "An AUTO CDC flow keeps the latest row of each key of "
              + table.objectName()
              + ", and is the table's only flow: "
              + (cdcThere ? "it has one already" : "it has other flows")
              + " (MANAGED_TABLE_DOES_NOT_SUPPORT_CDC)");
    }
  }

  /** The stored pipeline table {@code name} that flows can write into. */
  @Transactional(readOnly = true)
  public MaterializedTable pipelineTable(ObjectName name) {
    MaterializedTable table =
        find(name)
            .orElseThrow(
                () ->
                    new ApiException(
                        ErrorCode.NOT_FOUND,
                        "Table "
                            + name
                            + " does not exist; a flow writes into a pipeline table (CREATE TABLE"
                            + " ... FLOW, or CREATE STREAMING TABLE for an AUTO CDC flow)"));
    requireNotDeleting(table);
    TableSpec spec = spec(table);
    boolean legacy =
        spec.definition() == null && spec.pipeline() != null && spec.pipeline().flow() != null;
    if (spec.kind() != TableSpec.Kind.PIPELINE_TABLE || legacy) {
      throw new ApiException(
          ErrorCode.CONFLICT,
          name
              + (spec.kind() == TableSpec.Kind.PIPELINE_TABLE
                  ? " was stored by an earlier version that did not run flows; drop it and create"
                      + " it again"
                  : " is a materialized table; flows write into pipeline tables (CREATE TABLE ..."
                      + " FLOW)"));
    }
    return table;
  }

  /**
   * REFRESH STREAMING TABLE ... FULL: every flow's job is cancelled and its state (checkpoints,
   * savepoints, source offsets, an INSERT ONCE run) dropped, the topic is emptied, then every flow
   * starts again from the beginning of its sources, INSERT ONCE flows included. 409 while one runs.
   */
  @Transactional
  public TableChange fullRefresh(ObjectName name) {
    MaterializedTable table = pipelineTable(name);
    TableSpec spec = spec(table);
    if (spec.definition() == null) {
      throw new ApiException(
          ErrorCode.CONFLICT, name + " has no flow yet; there is nothing to refresh");
    }
    long done = table.status().fullRefreshed();
    if (spec.fullRefresh() > done) {
      throw new ApiException(
          ErrorCode.CONFLICT,
          "Full refresh #"
              + spec.fullRefresh()
              + " of "
              + name
              + " is under way; try again once it is done");
    }
    long number = spec.fullRefresh() + 1;
    for (MaterializedTable flow : flows(table)) {
      if (!flow.isDeletionRequested()) {
        writer.respecify(flow, spec(flow).withFullRefresh(number), flow.getDefinition(), false);
        writer.event(
            flow,
            TableEvent.Type.NORMAL,
            "FullRefreshRequested",
            "Full refresh #" + number + " of its table");
      }
    }
    return write(
        table,
        spec.withFullRefresh(number),
        false,
        "FullRefreshRequested",
        "Full refresh #"
            + number
            + " requested: the flows stop, the topic is emptied, the flows start from the beginning");
  }

  /**
   * SUSPEND / RESUME of a pipeline table: each of its flows stops with a savepoint / resumes from
   * it. A failed flow is restarted by RESUME.
   */
  private TableChange suspendFlows(MaterializedTable table, boolean stop) {
    int changed = 0;
    for (MaterializedTable flow : flows(table)) {
      if (flow.isDeletionRequested()) {
        continue;
      }
      TableSpec spec = spec(flow);
      if (spec.stopped() != stop || (!stop && flow.getPhase() == Phase.FAILED)) {
        writer.respecify(flow, spec.withStopped(stop), flow.getDefinition(), false);
        writer.event(
            flow,
            TableEvent.Type.NORMAL,
            stop ? "SuspendRequested" : "ResumeRequested",
            (stop ? "Suspend" : "Resume") + " requested with table " + table.objectName());
        changed++;
      }
    }
    if (changed == 0) {
      return unchanged(
          table,
          table.objectName()
              + (stop ? " has no running flow" : " has no suspended or failed flow"));
    }
    writer.event(
        table,
        TableEvent.Type.NORMAL,
        stop ? "SuspendRequested" : "ResumeRequested",
        (stop ? "Suspending " : "Resuming ") + changed + " flow(s)");
    return new TableChange(
        table,
        TableChange.Outcome.REQUESTED,
        (stop ? "Suspend" : "Resume")
            + " requested for "
            + changed
            + " flow(s) of "
            + table.objectName());
  }

  /** DROP FLOW: its job is cancelled (rows it wrote stay in the table), then the flow goes. */
  @Transactional
  public TableChange dropFlow(ObjectName name, boolean ifExists) {
    Optional<MaterializedTable> flow = findFlow(name);
    if (flow.isEmpty()) {
      if (ifExists) {
        return new TableChange(
            null, TableChange.Outcome.SKIPPED, "Flow " + name + " does not exist; nothing done");
      }
      throw new ApiException(ErrorCode.NOT_FOUND, "Flow " + name + " does not exist");
    }
    if (flow.get().isDeletionRequested()) {
      return new TableChange(
          flow.get(), TableChange.Outcome.UNCHANGED, "Flow " + name + " is already being dropped");
    }
    requestDeletion(flow.get());
    tables
        .findById(flow.get().getFlowOf())
        .ifPresent(
            t ->
                writer.event(
                    t, TableEvent.Type.NORMAL, "FlowDropped", "Flow " + name.name() + " dropped"));
    return new TableChange(
        flow.get(),
        TableChange.Outcome.REQUESTED,
        "Dropping flow "
            + name
            + ": its job is cancelled; the rows it wrote stay, the table's other flows run on");
  }

  @Transactional(readOnly = true)
  public Optional<MaterializedTable> findFlow(ObjectName name) {
    return catalogs
        .findDatabase(name.catalog(), name.database())
        .flatMap(db -> tables.findByDatabaseAndNameAndFlowOfIsNotNull(db, name.name()));
  }

  /** The flows of a pipeline table, by name. */
  @Transactional(readOnly = true)
  public List<MaterializedTable> flows(MaterializedTable table) {
    return tables.findByFlowOfOrderByName(table.getId());
  }

  /** Every flow of a database, by name. */
  @Transactional(readOnly = true)
  public List<MaterializedTable> flowsIn(String catalog, String database) {
    return catalogs
        .findDatabase(catalog, database)
        .map(tables::findByDatabaseAndFlowOfIsNotNullOrderByName)
        .orElse(List.of());
  }

  /** 409 ALREADY_EXISTS when the database has a flow of that name. */
  @Transactional(readOnly = true)
  public void requireFlowNameFree(ObjectName name) {
    if (findFlow(name).isPresent()) {
      throw new ApiException(
          ErrorCode.ALREADY_EXISTS,
          "A flow named "
              + name
              + " already exists; flow names are unique in a database (DROP FLOW it first)");
    }
  }

  private MaterializedTable insertFlow(
      MaterializedTable table, Statement.CreateFlow flow, MaterializedTableDefinition job) {
    // A flow added after a full refresh of its table starts at that refresh.
    TableSpec spec = TableSpec.flow(flow, job).withFullRefresh(spec(table).fullRefresh());
    MaterializedTable row =
        MaterializedTable.flow(
            UUID.randomUUID(), table, flow.name().name(), Json.write(spec), Printer.print(flow));
    writer.insert(
        row,
        () ->
            new ApiException(
                ErrorCode.CONFLICT,
                "Flow " + flow.name() + " was created concurrently; read and retry"));
    writer.event(
        row, TableEvent.Type.NORMAL, "Created", "Flow stored as version 1; waiting for its table");
    return row;
  }

  private void requestDeletion(MaterializedTable row) {
    writer.requestDeletion(row);
    writer.event(
        row,
        TableEvent.Type.NORMAL,
        "DropRequested",
        "Drop requested (generation " + row.getGeneration() + ")");
  }

  @Transactional
  public TableChange alter(ObjectName name, Statement.AlterAction action) {
    MaterializedTable table = get(name);
    requireNotDeleting(table);
    TableSpec spec = spec(table);
    if (spec.kind() == TableSpec.Kind.PIPELINE_TABLE
        && (action.effect() == Statement.AlterAction.Effect.SUSPEND
            || action.effect() == Statement.AlterAction.Effect.RESUME)) {
      return suspendFlows(table, action.effect() == Statement.AlterAction.Effect.SUSPEND);
    }
    return switch (action.effect()) {
      case SUSPEND ->
          spec.stopped()
              ? unchanged(table, name + " is already suspended")
              : write(
                  table, spec.withStopped(true), false, "SuspendRequested", "Suspend requested");
      case RESUME ->
          spec.stopped()
              ? write(table, spec.withStopped(false), false, "ResumeRequested", "Resume requested")
              : table.getPhase() == Phase.FAILED
                  ? write(
                      table,
                      spec,
                      false,
                      "RestartRequested",
                      "Restart of the failed table requested")
                  : unchanged(table, name + " is not suspended");
      case REFRESH -> refresh(table, action);
      case DEFINITION -> {
        requireMaterialized(name, spec);
        MaterializedTableDefinition changed;
        try {
          changed = action.applyTo(spec.definition());
        } catch (IllegalArgumentException e) {
          throw new ApiException(
              ErrorCode.INVALID_DEFINITION, e.getMessage() + " (table " + name + ")");
        }
        yield changeDefinition(table, changed, "Altered");
      }
    };
  }

  /**
   * The definition an ALTER would give the table, without storing it; a change that cannot apply (a
   * column that exists already, a key column dropped) is a 400.
   */
  @Transactional(readOnly = true)
  public MaterializedTableDefinition applied(ObjectName name, Statement.AlterAction action) {
    MaterializedTable table = get(name);
    requireNotDeleting(table);
    TableSpec spec = spec(table);
    requireMaterialized(name, spec);
    try {
      return action.applyTo(spec.definition());
    } catch (IllegalArgumentException e) {
      throw new ApiException(
          ErrorCode.INVALID_DEFINITION, e.getMessage() + " (table " + name + ")");
    }
  }

  /** A drop only if the table is still at {@code resourceVersion} (If-Match), else 412. */
  @Transactional
  public TableChange drop(ObjectName name, boolean ifExists, long resourceVersion) {
    Optional<MaterializedTable> table = find(name);
    if (table.isPresent() && table.get().getResourceVersion() != resourceVersion) {
      throw new ApiException(
          ErrorCode.PRECONDITION_FAILED,
          "If-Match names resourceVersion "
              + resourceVersion
              + " but "
              + name
              + " is at "
              + table.get().getResourceVersion()
              + "; read it again",
          Map.of("resourceVersion", table.get().getResourceVersion()));
    }
    return drop(name, ifExists);
  }

  @Transactional
  public TableChange drop(ObjectName name, boolean ifExists) {
    Optional<MaterializedTable> table = find(name);
    if (table.isEmpty()) {
      if (ifExists) {
        return new TableChange(
            null,
            TableChange.Outcome.SKIPPED,
            "Materialized table " + name + " does not exist; nothing done");
      }
      throw notFound(name);
    }
    if (table.get().isDeletionRequested()) {
      return new TableChange(
          table.get(), TableChange.Outcome.UNCHANGED, name + " is already being dropped");
    }
    // The reconciler cancels the job, deletes topic and subjects, then removes the row; versions
    // and events stay as history. A pipeline table's flows go first.
    for (MaterializedTable flow : flows(table.get())) {
      if (!flow.isDeletionRequested()) {
        requestDeletion(flow);
      }
    }
    requestDeletion(table.get());
    return new TableChange(
        table.get(),
        TableChange.Outcome.REQUESTED,
        "Dropping " + name + ": its job, topic and subjects are being removed");
  }

  @Transactional(readOnly = true)
  public Optional<MaterializedTable> find(ObjectName name) {
    return catalogs
        .findDatabase(name.catalog(), name.database())
        .flatMap(db -> tables.findByDatabaseAndNameAndFlowOfIsNull(db, name.name()));
  }

  /** A stored row (a table or a flow) by its id. */
  @Transactional(readOnly = true)
  public MaterializedTable byId(UUID id) {
    return tables
        .findById(id)
        .orElseThrow(() -> new ApiException(ErrorCode.NOT_FOUND, "No table with id " + id));
  }

  @Transactional(readOnly = true)
  public MaterializedTable get(ObjectName name) {
    return find(name).orElseThrow(() -> notFound(name));
  }

  @Transactional(readOnly = true)
  public List<MaterializedTable> list(String catalog, String database) {
    return catalogs
        .findDatabase(catalog, database)
        .map(tables::findByDatabaseAndFlowOfIsNullOrderByName)
        .orElse(List.of());
  }

  @Transactional(readOnly = true)
  public List<MaterializedTable> all() {
    return tables.findByFlowOfIsNull();
  }

  public TableSpec spec(MaterializedTable table) {
    return TableSpec.of(table);
  }

  /** SHOW CREATE: the effective definition, every default written out. */
  public static String showCreate(ObjectName name, TableSpec spec) {
    if (spec.kind() == TableSpec.Kind.PIPELINE_TABLE) {
      StringBuilder sql = new StringBuilder(Printer.print(spec.pipeline()));
      spec.flows().forEach(f -> sql.append(";\n").append(Printer.print(f)));
      return sql.toString();
    }
    if (spec.kind() == TableSpec.Kind.FLOW) {
      return Printer.print(spec.flowStatement());
    }
    return Printer.print(
        new Statement.CreateMaterializedTable(
            name, false, false, Defaults.effective(spec.definition())));
  }

  private TableChange insert(ObjectName name, TableSpec spec) {
    if (catalogs.findSourceTable(name).isPresent()) {
      throw new ApiException(
          ErrorCode.ALREADY_EXISTS, "A source table named " + name + " already exists");
    }
    String topic = topicNames.of(name);
    requireTopicFree(name, topic);
    CatalogDatabase db = catalogs.ensureDatabase(name.catalog(), name.database());
    MaterializedTable table =
        new MaterializedTable(
            UUID.randomUUID(), db, name.name(), topic, Json.write(spec), showCreate(name, spec));
    // Another request may take the name or the topic between the checks and this insert.
    writer.insert(
        table,
        () ->
            new NameTaken(
                "Table " + name + " or topic " + topic + " was taken concurrently; read and retry",
                Map.of("topic", topic)));
    writer.event(
        table,
        TableEvent.Type.NORMAL,
        "Created",
        "Definition stored as version 1; waiting for the reconciler");
    return new TableChange(
        table,
        TableChange.Outcome.CREATED,
        (spec.kind() == TableSpec.Kind.PIPELINE_TABLE ? "Pipeline table " : "Materialized table ")
            + name
            + " created"
            + refreshNote(spec));
  }

  /**
   * For a FULL table: when data first arrives. As in Flink, no refresh runs at CREATE unless asked
   * ({@code 'refresh.on-create' = 'true'}, or ALTER ... REFRESH).
   */
  private static String refreshNote(TableSpec spec) {
    if (spec.kind() != TableSpec.Kind.MATERIALIZED_TABLE) {
      return "";
    }
    MaterializedTableDefinition effective = Defaults.effective(spec.definition());
    if (effective.refreshMode() != Clauses.RefreshMode.FULL) {
      return "";
    }
    RefreshSchedule schedule = RefreshSchedule.of(effective);
    boolean onCreate = "true".equals(effective.options().get("refresh.on-create"));
    return "; "
        + Defaults.refreshModeReason(spec.definition())
        + ": "
        + (onCreate
            ? "a first refresh runs now ('refresh.on-create' = 'true'), then"
            : "no refresh runs at CREATE (ALTER ... REFRESH runs one now); the first")
        + " scheduled refresh is at "
        + schedule.next(Instant.now())
        + " ("
        + schedule.zone()
        + ")";
  }

  /** The topic a new table would get; 409 naming the owner if another table holds it. */
  public String topicFor(ObjectName name) {
    String topic = topicNames.of(name);
    requireTopicFree(name, topic);
    return topic;
  }

  /** Every table's topic (flows write into their table's and own none). */
  @Transactional(readOnly = true)
  public Map<String, ObjectName> topicOwners() {
    Map<String, ObjectName> owners = new HashMap<>();
    for (MaterializedTable t : tables.findAll()) {
      if (t.getFlowOf() == null) {
        owners.put(t.getTopicName(), t.objectName());
      }
    }
    return owners;
  }

  /** The table whose topic this is, if one owns it. */
  @Transactional(readOnly = true)
  public Optional<String> topicOwner(String topic) {
    return tables.findByTopicNameAndFlowOfIsNull(topic).map(MaterializedTable::qualifiedName);
  }

  private void requireTopicFree(ObjectName name, String topic) {
    // A source table of another database that already reads the topic would read this table's
    // rows past its database's grants: the topic is taken.
    for (CatalogService.SourceTopics source : catalogs.sourceTopics()) {
      ObjectName s = source.table();
      boolean elsewhere =
          !s.catalog().equals(name.catalog()) || !s.database().equals(name.database());
      if (elsewhere && source.topics().contains(topic)) {
        throw new ApiException(
            ErrorCode.ALREADY_EXISTS,
            "Topic "
                + topic
                + " of the new table "
                + name
                + " is read by a source table of "
                + (Access.sees(s.catalog(), s.database()) ? s.toString() : "another database")
                + "; a table's topic is its own. Choose another name or set"
                + " tributary.kafka.topic-name-template to include {database}",
            Map.of("topic", topic));
      }
    }
    tables
        .findByTopicNameAndFlowOfIsNull(topic)
        .ifPresent(
            owner -> {
              if (owner.objectName().equals(name)) {
                // The table itself, created by another request since this one looked for it.
                throw new NameTaken(
                    "Table " + name + " was created concurrently; read and retry",
                    Map.of("topic", topic));
              }
              // The owner is named only to a caller who may see its database.
              ObjectName o = owner.objectName();
              boolean visible = Access.sees(o.catalog(), o.database());
              throw new ApiException(
                  ErrorCode.ALREADY_EXISTS,
                  "Topic "
                      + topic
                      + " of the new table "
                      + name
                      + (visible
                          ? " belongs to materialized table "
                              + owner.qualifiedName()
                              + (owner.isDeletionRequested() ? " (being dropped)" : "")
                          : " is taken by a table of another database")
                      + "; a topic has one owner. Choose another name or set"
                      + " tributary.kafka.topic-name-template to include {database}",
                  visible
                      ? Map.of("topic", topic, "owner", owner.qualifiedName())
                      : Map.of("topic", topic));
            });
  }

  private TableChange changeDefinition(
      MaterializedTable table, MaterializedTableDefinition definition, String reason) {
    TableSpec spec = spec(table);
    requireMaterialized(table.objectName(), spec);
    if (spec.definition().equals(definition)) {
      return unchanged(table, "Definition of " + table.objectName() + " is unchanged");
    }
    return write(table, spec.withDefinition(definition), true, reason, "Definition changed");
  }

  private TableChange write(
      MaterializedTable table, TableSpec spec, boolean newVersion, String reason, String message) {
    String definition = newVersion ? showCreate(table.objectName(), spec) : table.getDefinition();
    String before = writer.respecify(table, spec, definition, newVersion);
    writer.event(
        table,
        TableEvent.Type.NORMAL,
        reason,
        message + " (generation " + table.getGeneration() + ")",
        before);
    return new TableChange(
        table,
        newVersion ? TableChange.Outcome.UPDATED : TableChange.Outcome.REQUESTED,
        message + " for " + table.objectName() + " (generation " + table.getGeneration() + ")");
  }

  private TableChange refresh(MaterializedTable table, Statement.AlterAction action) {
    Map<String, String> partition = ((Statement.Refresh) action).partition();
    TableRefresh refresh = refreshRequests.request(table, partition);
    return new TableChange(
        table,
        TableChange.Outcome.REQUESTED,
        "Refresh #"
            + refresh.number()
            + " of "
            + table.objectName()
            + (partition.isEmpty() ? " (whole table)" : " (partition " + partition + ")")
            + " queued; GET .../refreshes shows its progress");
  }

  /**
   * A manual refresh of a FULL table, now, of the whole table or of one partition (also of a
   * suspended table, as in Flink). Refused with 409 while another refresh of the table runs.
   */
  @Transactional
  public TableRefresh refresh(ObjectName name, Map<String, String> partition) {
    MaterializedTable table = get(name);
    requireNotDeleting(table);
    return refreshRequests.request(table, partition);
  }

  private TableChange unchanged(MaterializedTable table, String message) {
    return new TableChange(table, TableChange.Outcome.UNCHANGED, message);
  }

  static void requireNotDeleting(MaterializedTable table) {
    if (table.isDeletionRequested()) {
      throw new ApiException(
          ErrorCode.CONFLICT, table.objectName() + " is being dropped; try again once it is gone");
    }
  }

  static void requireMaterialized(ObjectName name, TableSpec spec) {
    if (spec.kind() != TableSpec.Kind.MATERIALIZED_TABLE) {
      throw new ApiException(
          ErrorCode.CONFLICT,
          name + " is a pipeline table; change it with CREATE FLOW or drop and recreate it");
    }
  }

  static ApiException notFound(ObjectName name) {
    return new ApiException(ErrorCode.NOT_FOUND, "Materialized table " + name + " does not exist");
  }
}
