package dev.tributary.table;

import dev.tributary.catalog.CatalogService;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Printer;
import dev.tributary.sql.Statement;
import dev.tributary.sql.TableOptions;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.Json;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Pipeline tables (CREATE TABLE ... FLOW, Databricks' streaming tables) and their flows: create a
 * table with its first flow or declared without one, add and drop flows, and a full refresh, which
 * starts every flow again from the beginning. Rows go through {@link MaterializedTableService},
 * which writes them; a suspend, resume or drop of the table is its ALTER or DROP there.
 */
@Service
public class PipelineTables {

  private final CatalogService catalogs;
  private final MaterializedTableRepository rows;
  private final MaterializedTableService tables;
  private final TableWriter writer;

  PipelineTables(
      CatalogService catalogs,
      MaterializedTableRepository rows,
      MaterializedTableService tables,
      TableWriter writer) {
    this.catalogs = catalogs;
    this.rows = rows;
    this.tables = tables;
    this.writer = writer;
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
    if (tables.find(name).isPresent()) {
      throw new ApiException(ErrorCode.ALREADY_EXISTS, "Table " + name + " already exists");
    }
    if (statement.flow() == null) {
      // CREATE STREAMING TABLE without a query: its first flow gives it columns and a topic.
      TableChange declared = tables.insert(name, TableSpec.of(statement, null));
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
    TableChange created = tables.insert(name, TableSpec.of(statement, table));
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
    TableSpec spec = tables.spec(stored);
    if (spec.definition() == null) {
      tables.write(
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
        tables.flows(table).stream().filter(f -> !f.isDeletionRequested()).toList();
    boolean cdcThere = others.stream().anyMatch(f -> tables.spec(f).flowStatement().cdc() != null);
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
        tables
            .find(name)
            .orElseThrow(
                () ->
                    new ApiException(
                        ErrorCode.NOT_FOUND,
                        "Table "
                            + name
                            + " does not exist; a flow writes into a pipeline table (CREATE TABLE"
                            + " ... FLOW, or CREATE STREAMING TABLE for an AUTO CDC flow)"));
    MaterializedTableService.requireNotDeleting(table);
    TableSpec spec = tables.spec(table);
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
    TableSpec spec = tables.spec(table);
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
    for (MaterializedTable flow : tables.flows(table)) {
      if (!flow.isDeletionRequested()) {
        writer.respecify(
            flow, tables.spec(flow).withFullRefresh(number), flow.getDefinition(), false);
        writer.event(
            flow,
            TableEvent.Type.NORMAL,
            "FullRefreshRequested",
            "Full refresh #" + number + " of its table");
      }
    }
    return tables.write(
        table,
        spec.withFullRefresh(number),
        false,
        "FullRefreshRequested",
        "Full refresh #"
            + number
            + " requested: the flows stop, the topic is emptied, the flows start from the beginning");
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
    tables.requestDeletion(flow.get());
    rows.findById(flow.get().getFlowOf())
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

  /**
   * ALTER FLOW name SUSPEND | RESUME: the flow's job stops with a savepoint, or resumes from it;
   * the table's other flows are not touched. The table's phase and Ready condition name the flows
   * that run and those suspended.
   */
  @Transactional
  public TableChange suspendFlow(ObjectName name, boolean stop) {
    MaterializedTable flow =
        findFlow(name)
            .orElseThrow(
                () -> new ApiException(ErrorCode.NOT_FOUND, "Flow " + name + " does not exist"));
    if (flow.isDeletionRequested()) {
      throw new ApiException(
          ErrorCode.CONFLICT, "Flow " + name + " is being dropped; nothing to suspend or resume");
    }
    MaterializedTable table = rows.findById(flow.getFlowOf()).orElseThrow();
    if (table.isDeletionRequested()) {
      throw new ApiException(
          ErrorCode.CONFLICT,
          "Table " + table.objectName() + " of flow " + name + " is being dropped");
    }
    if (!tables.suspendFlow(flow, stop, "for this flow alone")) {
      return new TableChange(
          flow,
          TableChange.Outcome.UNCHANGED,
          "Flow " + name + (stop ? " is already suspended" : " is not suspended"));
    }
    writer.event(
        table,
        TableEvent.Type.NORMAL,
        stop ? "FlowSuspendRequested" : "FlowResumeRequested",
        (stop ? "Suspending" : "Resuming") + " flow " + name.name() + "; the other flows run on");
    return new TableChange(
        flow,
        TableChange.Outcome.REQUESTED,
        (stop
                ? "Suspend requested for flow " + name + ": its job stops with a savepoint"
                : "Resume requested for flow " + name + ": its job resumes from its savepoint")
            + "; the other flows of "
            + table.objectName()
            + " run on");
  }

  /** The compute pool a pipeline table's flows are placed on. */
  public String pool(MaterializedTable table) {
    return TableOptions.pool(tables.spec(table).pipeline().tableProperties());
  }

  /** The flows of {@code table} a change of its properties carries to: those not being dropped. */
  @Transactional(readOnly = true)
  public List<MaterializedTable> movableFlows(MaterializedTable table) {
    return tables.flows(table).stream()
        .filter(f -> !f.isDeletionRequested())
        .sorted(Comparator.comparing(MaterializedTable::getName))
        .toList();
  }

  /** A definition with its {@code 'compute-pool'} set to {@code pool}. */
  public static MaterializedTableDefinition onPool(
      MaterializedTableDefinition definition, String pool) {
    Map<String, String> options = new TreeMap<>(definition.options());
    options.put(TableOptions.COMPUTE_POOL, pool);
    return definition.withOptions(options);
  }

  /**
   * ALTER TABLE t SET TBLPROPERTIES ('compute-pool' = 'q'): the table's properties, and each flow's
   * job as planned ({@code flows}, by row id), get a new version on {@code pool}. 409 when the
   * flows changed since they were planned, or a full refresh is under way.
   */
  @Transactional
  public TableChange moveTo(
      MaterializedTable table, String pool, Map<UUID, MaterializedTableDefinition> flows) {
    MaterializedTable row = pipelineTable(table.objectName());
    TableSpec spec = tables.spec(row);
    if (spec.fullRefresh() > row.status().fullRefreshed()) {
      throw new ApiException(
          ErrorCode.CONFLICT,
          "Full refresh #"
              + spec.fullRefresh()
              + " of "
              + row.objectName()
              + " is under way; move its flows once it is done");
    }
    List<MaterializedTable> current = movableFlows(row);
    Set<UUID> ids = current.stream().map(MaterializedTable::getId).collect(Collectors.toSet());
    if (!ids.equals(flows.keySet())) {
      throw new ApiException(
          ErrorCode.CONFLICT,
          "The flows of " + row.objectName() + " changed while the move was planned; try again");
    }
    Map<String, String> properties = new TreeMap<>(spec.pipeline().tableProperties());
    properties.put(TableOptions.COMPUTE_POOL, pool);
    TableSpec moved =
        new TableSpec(
                spec.kind(),
                spec.definition() == null ? null : onPool(spec.definition(), pool),
                spec.pipeline().withTableProperties(properties),
                spec.flows(),
                spec.stopped())
            .withFullRefresh(spec.fullRefresh());
    String from = pool(row);
    for (MaterializedTable flow : current) {
      tables.write(
          flow,
          tables.spec(flow).withDefinition(flows.get(flow.getId())),
          true,
          "ComputePoolChanged",
          "Moving from compute pool " + from + " to " + pool + " with its table");
    }
    TableChange change =
        tables.write(
            row,
            moved,
            true,
            "ComputePoolChanged",
            "Flows move from compute pool "
                + from
                + " to "
                + pool
                + " ("
                + current.size()
                + " flow"
                + (current.size() == 1 ? "" : "s")
                + ", each stopped with a savepoint and started from it there)");
    return change;
  }

  /** The flow named {@code flow} of pipeline table {@code table}. */
  @Transactional(readOnly = true)
  public MaterializedTable flowOf(ObjectName table, String flow) {
    MaterializedTable t = pipelineTable(table);
    return tables.flows(t).stream()
        .filter(f -> f.getName().equals(flow))
        .findFirst()
        .orElseThrow(
            () ->
                new ApiException(
                    ErrorCode.NOT_FOUND, "Table " + table + " has no flow named " + flow));
  }

  @Transactional(readOnly = true)
  public Optional<MaterializedTable> findFlow(ObjectName name) {
    return catalogs
        .findDatabase(name.catalog(), name.database())
        .flatMap(db -> rows.findByDatabaseAndNameAndFlowOfIsNotNull(db, name.name()));
  }

  /** Every flow of a database, by name. */
  @Transactional(readOnly = true)
  public List<MaterializedTable> flowsIn(String catalog, String database) {
    return catalogs
        .findDatabase(catalog, database)
        .map(rows::findByDatabaseAndFlowOfIsNotNullOrderByName)
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
    TableSpec spec = TableSpec.flow(flow, job).withFullRefresh(tables.spec(table).fullRefresh());
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
}
