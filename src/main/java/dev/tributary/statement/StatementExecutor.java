package dev.tributary.statement;

import dev.tributary.catalog.CatalogService;
import dev.tributary.catalog.SourceTable;
import dev.tributary.catalog.SourceTableDefinition;
import dev.tributary.plan.ChangePlan;
import dev.tributary.plan.ChangePlanner;
import dev.tributary.plan.FlowPlanner;
import dev.tributary.security.Access;
import dev.tributary.security.Role;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Parser;
import dev.tributary.sql.Printer;
import dev.tributary.sql.Secrets;
import dev.tributary.sql.Statement;
import dev.tributary.sql.TableOptions;
import dev.tributary.statement.StatementResult.Resource;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.table.MaterializedTable;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.PipelineTables;
import dev.tributary.table.TableChange;
import dev.tributary.table.TableSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.springframework.stereotype.Component;

/**
 * Carries out one script's statements against the store, in the script's session context (its
 * current catalog and database, which USE changes). One instance per script.
 */
final class StatementExecutor implements Statement.Visitor<StatementResult> {

  private final MaterializedTableService tables;
  private final PipelineTables pipelines;
  private final CatalogService catalogs;
  private final TableQueries queries;
  private final ChangePlanner planner;
  private final RemoteReads remote;
  private final FlowPlanner flows;
  private final TopicOwnership policy;
  private final Lineage lineage;
  private final Set<ObjectName> createdHere = new HashSet<>();
  private final Map<ObjectName, Statement.CreateFlow> firstFlows = new HashMap<>();

  /**
   * Whether statements declare the desired state (a plan of a set of files): CREATE of an object
   * that exists then means "make it so", and is unchanged when it already is.
   */
  private final boolean declarative;

  private String catalog;
  private String database;
  private Parser.Parsed current;

  private StatementExecutor(
      MaterializedTableService tables,
      PipelineTables pipelines,
      CatalogService catalogs,
      TableQueries queries,
      ChangePlanner planner,
      FlowPlanner flows,
      RemoteReads remote,
      TopicOwnership policy,
      Lineage lineage,
      String catalog,
      String database,
      boolean declarative) {
    this.lineage = lineage;
    this.declarative = declarative;
    this.policy = policy;
    this.flows = flows;
    this.tables = tables;
    this.pipelines = pipelines;
    this.catalogs = catalogs;
    this.queries = queries;
    this.planner = planner;
    this.remote = remote;
    this.catalog = catalog;
    this.database = database;
  }

  /** Makes executors with the services wired in. */
  @Component
  static class Factory {
    private final MaterializedTableService tables;
    private final PipelineTables pipelines;
    private final CatalogService catalogs;
    private final TableQueries queries;
    private final ChangePlanner planner;
    private final FlowPlanner flows;
    private final TopicOwnership policy;
    private final Lineage lineage;

    Factory(
        MaterializedTableService tables,
        PipelineTables pipelines,
        CatalogService catalogs,
        TableQueries queries,
        ChangePlanner planner,
        FlowPlanner flows,
        TopicOwnership policy,
        Lineage lineage) {
      this.lineage = lineage;
      this.policy = policy;
      this.flows = flows;
      this.tables = tables;
      this.pipelines = pipelines;
      this.catalogs = catalogs;
      this.queries = queries;
      this.planner = planner;
    }

    StatementExecutor create(String catalog, String database, RemoteReads remote) {
      return new StatementExecutor(
          tables, pipelines, catalogs, queries, planner, flows, remote, policy, lineage, catalog,
          database, false);
    }

    /** An executor for a declared set of files (see {@link StatementExecutor#declarative}). */
    StatementExecutor declarative(String catalog, String database, RemoteReads remote) {
      return new StatementExecutor(
          tables, pipelines, catalogs, queries, planner, flows, remote, policy, lineage, catalog,
          database, true);
    }
  }

  /** Starts the next file of a set in the set's own catalog and database, whatever USE did. */
  void use(String newCatalog, String newDatabase) {
    this.catalog = newCatalog;
    this.database = newDatabase;
  }

  /** Statement kinds a declared set of files may hold: they say what exists, not what to do. */
  static boolean declares(Statement statement) {
    return statement instanceof Statement.CreateMaterializedTable
        || statement instanceof Statement.CreatePipelineTable
        || statement instanceof Statement.CreateFlow
        || statement instanceof Statement.CreateSourceTable
        || statement instanceof Statement.Use;
  }

  StatementResult execute(Parser.Parsed parsed) {
    current = parsed;
    StatementAccess.check(parsed.statement(), catalog, database);
    return parsed.statement().accept(this);
  }

  private ObjectName resolve(ObjectName name) {
    return name.resolve(catalog, database);
  }

  @Override
  public StatementResult createMaterializedTable(Statement.CreateMaterializedTable s) {
    if (declarative && !s.orAlter() && !s.ifNotExists()) {
      s = new Statement.CreateMaterializedTable(s.name(), true, false, s.definition());
    }
    ObjectName name = resolve(s.name());
    Optional<MaterializedTable> existing = tables.find(name);
    MaterializedTableDefinition definition =
        planner.placed(name, ChangePlanner.Current.of(existing, tables), s.definition());
    ChangePlan plan = null;
    boolean unchanged =
        existing.isPresent()
            && s.orAlter()
            && tables.spec(existing.get()).definition().equals(definition);
    // An unchanged definition needs no plan: no question to Flink, so a table that the reconciler
    // is working on meanwhile cannot make the script's reads stale.
    if (existing.isEmpty() || (s.orAlter() && !unchanged)) {
      // A new table's topic is checked free before Flink is asked: a name that collides is a 409
      // whatever Flink would say of the query.
      plan = approved(plan(name, existing, definition));
    }
    if (plan != null && plan.autoFallback() != null) {
      // AUTO could not run the query as a stream: stored as FULL, and the result says why.
      definition = ChangePlanner.asFull(definition);
    }
    TableChange change = tables.create(name, existing, definition, s.orAlter(), s.ifNotExists());
    planner.requireQuotaAtCommit(name, plan, definition);
    StatementResult result = changed(name, "MATERIALIZED_TABLE", change).withPlan(plan);
    return plan != null && plan.autoFallback() != null
        ? result.withMessage(result.message() + ". WARNING: " + plan.autoFallback())
        : result;
  }

  @Override
  public StatementResult alterMaterializedTable(Statement.AlterMaterializedTable s) {
    ObjectName name = resolve(s.name());
    // Read once: the statement's plan and its write use the same row.
    Optional<MaterializedTable> found = tables.find(name);
    MaterializedTable table = found.orElseThrow(() -> MaterializedTableService.notFound(name));
    ChangePlan plan = null;
    MaterializedTableDefinition next = null;
    if (s.action().effect() == Statement.AlterAction.Effect.DEFINITION) {
      next = tables.applied(table, s.action());
      plan = approved(plan(name, found, next));
    }
    TableChange change = tables.alter(table, s.action());
    planner.requireQuotaAtCommit(name, plan, next);
    return changed(name, "MATERIALIZED_TABLE", change).withPlan(plan);
  }

  @Override
  public StatementResult explain(Statement.Explain s) {
    ObjectName name;
    MaterializedTableDefinition next;
    if (s.statement() instanceof Statement.CreateMaterializedTable create) {
      name = resolve(create.name());
      if (tables.find(name).isPresent() && !create.orAlter()) {
        throw new ApiException(
            ErrorCode.ALREADY_EXISTS,
            "Materialized table "
                + name
                + " already exists; EXPLAIN CREATE OR ALTER shows what a change would do");
      }
      next =
          planner.placed(
              name, ChangePlanner.Current.of(tables.find(name), tables), create.definition());
    } else {
      Statement.AlterMaterializedTable alter = (Statement.AlterMaterializedTable) s.statement();
      name = resolve(alter.name());
      if (alter.action().effect() != Statement.AlterAction.Effect.DEFINITION) {
        throw new ApiException(
            ErrorCode.UNSUPPORTED_STATEMENT,
            "EXPLAIN explains definition changes; "
                + alter.action().sql()
                + " changes the running state only");
      }
      next = tables.applied(name, alter.action());
    }
    ChangePlan plan = plan(name, tables.find(name), next);
    return result(
            name,
            "MATERIALIZED_TABLE",
            plan == null || plan.rejected() ? "REJECTED" : "PLANNED",
            summary(plan))
        .withPlan(plan);
  }

  /**
   * The plan of giving {@code name} the definition {@code next}, asked outside the script's
   * transaction (null in the first run of a script, see {@link RemoteReads}).
   */
  private ChangePlan plan(
      ObjectName name, Optional<MaterializedTable> existing, MaterializedTableDefinition next) {
    String topic =
        existing.map(MaterializedTable::getTopicName).orElseGet(() -> tables.topicFor(name));
    ChangePlanner.Request request =
        planner.request(name, topic, ChangePlanner.Current.of(existing, tables), next);
    return remote.ask(current, request, planner::plan);
  }

  private static ChangePlan approved(ChangePlan plan) {
    return plan == null ? null : ChangePlanner.approved(plan);
  }

  private static String summary(ChangePlan plan) {
    if (plan == null) {
      return null;
    }
    if (plan.rejected()) {
      return String.join("; ", plan.rejections());
    }
    return switch (plan.action()) {
      case CREATE -> "Creates " + plan.table() + ": topic, subjects and a job";
      case EVOLVE -> "Evolves " + plan.table() + ": " + plan.restart();
      case CHANGE ->
          "Changes "
              + plan.table()
              + (plan.jobRestarts() ? ": " + plan.restart() : "; the job keeps running");
      case UNCHANGED -> plan.table() + " is unchanged";
    };
  }

  @Override
  public StatementResult dropMaterializedTable(Statement.DropMaterializedTable s) {
    ObjectName name = resolve(s.name());
    return changed(name, "MATERIALIZED_TABLE", tables.drop(name, s.ifExists()));
  }

  @Override
  public StatementResult showMaterializedTables(Statement.ShowMaterializedTables s) {
    ObjectName db = s.database() == null ? new ObjectName(catalog, null, database) : s.database();
    String inCatalog = db.database() != null ? db.database() : catalog;
    List<List<Object>> rows =
        tables.list(inCatalog, db.name()).stream()
            .filter(t -> s.like() == null || TableQueries.like(t.getName(), s.like()))
            .map(queries::showRow)
            .toList();
    return rows(TableQueries.SHOW_COLUMNS, rows);
  }

  @Override
  public StatementResult showCreateMaterializedTable(Statement.ShowCreateMaterializedTable s) {
    MaterializedTable table = tables.get(resolve(s.name()));
    String ddl = MaterializedTableService.showCreate(table.objectName(), tables.spec(table));
    for (MaterializedTable flow : tables.flows(table)) {
      // The flow named as the table is the CREATE TABLE's FLOW clause, if it has one.
      if (!flow.getName().equals(table.getName()) || tables.spec(table).pipeline().flow() == null) {
        ddl += ";\n" + flow.getDefinition();
      }
    }
    return rows(List.of("create_statement"), List.of(List.of(ddl)));
  }

  @Override
  public StatementResult showMaterializedTable(Statement.ShowMaterializedTable s) {
    return rows(List.of("direction", "table", "type"), lineage.rows(tables.get(resolve(s.name()))));
  }

  @Override
  public StatementResult describe(Statement.Describe s) {
    ObjectName name = resolve(s.name());
    return rows(TableQueries.DESCRIBE_COLUMNS, queries.describe(name));
  }

  @Override
  public StatementResult select(Statement.Select s) {
    ObjectName from = s.from();
    if ("information_schema".equalsIgnoreCase(from.database())
        && "materialized_tables".equalsIgnoreCase(from.name())) {
      String inCatalog = from.catalog() != null ? from.catalog() : catalog;
      TableQueries.Rows rows = queries.informationSchema(inCatalog, s);
      return rows(rows.columns(), rows.rows());
    }
    ObjectName name = resolve(from);
    var table = tables.find(name);
    if (table.isEmpty()) {
      throw new ApiException(
          catalogs.findSourceTable(name).isPresent()
              ? ErrorCode.UNSUPPORTED_STATEMENT
              : ErrorCode.NOT_FOUND,
          catalogs.findSourceTable(name).isPresent()
              ? "Reading source table "
                  + name
                  + " is not supported here; query a materialized table over it"
              : "Table " + name + " does not exist");
    }
    TableRows.Request request = queries.tableRows(table.get(), s);
    TableQueries.Rows rows = remote.ask(current, request, queries::answer);
    return rows == null ? rows(request.columns(), List.of()) : rows(rows.columns(), rows.rows());
  }

  @Override
  public StatementResult createPipelineTable(Statement.CreatePipelineTable s) {
    ObjectName name = resolve(s.name());
    Optional<MaterializedTable> existing = tables.find(name);
    if (declarative && existing.isPresent()) {
      TableSpec spec = tables.spec(existing.get());
      if (spec.kind() == TableSpec.Kind.PIPELINE_TABLE) {
        // A declaration that names no pool keeps the table on its own; one that names another
        // pool, and changes nothing else, moves its flows.
        String pool = TableOptions.pool(spec.pipeline().tableProperties());
        Statement.CreatePipelineTable given = s;
        if (!s.tableProperties().containsKey(TableOptions.COMPUTE_POOL)) {
          given = onPool(s, pool);
        }
        if (sameTable(onPool(spec.pipeline(), pool), given)) {
          return unchanged(name, "PIPELINE_TABLE", "Pipeline table " + name + " is unchanged");
        }
        String declaredPool = TableOptions.pool(given.tableProperties());
        if (sameTable(onPool(spec.pipeline(), declaredPool), given)) {
          return alterPipelineTable(new Statement.AlterPipelineTable(name, declaredPool));
        }
      }
      throw notInPlace(
          "Pipeline table", name, "drop it (DROP TABLE) or remove its file and apply with --prune");
    }
    if (existing.isPresent() || catalogs.findSourceTable(name).isPresent()) {
      throw new ApiException(ErrorCode.ALREADY_EXISTS, "Table " + name + " already exists");
    }
    pipelines.requireFlowNameFree(name); // the flow of CREATE TABLE ... FLOW is named as its table
    s = s.withTableProperties(planner.placedProperties(name, s.tableProperties()));
    planner.requirePool(name, s.tableProperties());
    if (s.flow() == null) {
      createdHere.add(name);
      return changed(name, "PIPELINE_TABLE", pipelines.createPipelineTable(name, s, null, null));
    }
    Statement.CreateFlow flow = Statement.CreateFlow.of(name, s.flow());
    FlowPlanner.Request request = flows.request(name, tables.topicFor(name), s, null, null, flow);
    FlowPlanner.Planned planned = remote.ask(current, request, flows::plan);
    createdHere.add(name);
    TableChange change =
        planned == null
            ? pipelines.createPipelineTable(
                name, s, placeholder(s.flow().query()), placeholder(s.flow().query()))
            : pipelines.createPipelineTable(name, s, planned.table(), planned.job());
    return changed(name, "PIPELINE_TABLE", change)
        .withPlan(planned == null ? null : ChangePlanner.approved(planned.plan()));
  }

  /**
   * Stands in for the planned definitions in a script's first run, whose remote reads are collected
   * and not answered: that run is rolled back, and the second one stores the plan.
   */
  private static MaterializedTableDefinition placeholder(String query) {
    return new MaterializedTableDefinition(
        null, null, List.of(), null, Map.of(), null, null, null, query);
  }

  @Override
  public StatementResult createFlow(Statement.CreateFlow s) {
    ObjectName target = resolve(s.target());
    MaterializedTable table = pipelines.pipelineTable(target);
    ObjectName named = new ObjectName(target.catalog(), target.database(), s.name().name());
    if (declarative) {
      Optional<MaterializedTable> existing = pipelines.findFlow(named);
      if (existing.isPresent()) {
        Statement.CreateFlow stored = tables.spec(existing.get()).flowStatement();
        if (existing.get().getFlowOf().equals(table.getId())
            && s.withNames(named, target).equals(stored)) {
          return unchanged(named, "FLOW", "Flow " + named + " is unchanged");
        }
        throw notInPlace(
            "Flow", named, "drop it (DROP FLOW) or remove it from its file and apply with --prune");
      }
    }
    pipelines.requireFlowAllowed(table, s);
    pipelines.requireFlowNameFree(named); // before planning it
    TableSpec spec = tables.spec(table);
    // A table created earlier in this script is planned from its statements in both runs: the
    // stored definition differs between them (the first run's plans are not answered).
    boolean here = createdHere.contains(target);
    MaterializedTableDefinition stored = here ? null : spec.definition();
    Statement.CreateFlow first = here ? firstFlows.get(target) : null;
    FlowPlanner.Request request =
        flows.request(target, table.getTopicName(), spec.pipeline(), stored, first, s);
    FlowPlanner.Planned planned = remote.ask(current, request, flows::plan);
    if (spec.pipeline().flow() == null && stored == null) {
      firstFlows.putIfAbsent(target, s);
    }
    ObjectName flowName = new ObjectName(target.catalog(), target.database(), s.name().name());
    TableChange change =
        planned == null
            ? pipelines.addFlow(target, s, placeholder(s.query()), placeholder(s.query()))
            : pipelines.addFlow(target, s, planned.job(), planned.table());
    return changed(flowName, "FLOW", change)
        .withPlan(planned == null ? null : ChangePlanner.approved(planned.plan()));
  }

  @Override
  public StatementResult dropFlow(Statement.DropFlow s) {
    ObjectName name = resolve(s.name());
    return changed(name, "FLOW", pipelines.dropFlow(name, s.ifExists()));
  }

  @Override
  public StatementResult alterFlow(Statement.AlterFlow s) {
    ObjectName name = resolve(s.name());
    return changed(name, "FLOW", pipelines.suspendFlow(name, s.suspend()));
  }

  /**
   * ALTER TABLE t SET TBLPROPERTIES ('compute-pool' = 'q'): each flow's job is planned on the new
   * pool (validated on its gateway, checked for room and quota), then the table and every flow get
   * a new version there; the reconciler moves each flow's job as it moves a materialized table's.
   */
  @Override
  public StatementResult alterPipelineTable(Statement.AlterPipelineTable s) {
    ObjectName name = resolve(s.name());
    if (catalogs.findSourceTable(name).isPresent()) {
      throw new ApiException(
          ErrorCode.CONFLICT,
          name
              + " is a source table, which runs no job; a pipeline table's flows move with its"
              + " 'compute-pool'");
    }
    MaterializedTable table = pipelines.pipelineTable(name);
    String pool = s.computePool();
    if (pool.equals(pipelines.pool(table))) {
      return unchanged(
          name, "PIPELINE_TABLE", "Pipeline table " + name + " is on compute pool " + pool);
    }
    planner.requirePool(name, Map.of(TableOptions.COMPUTE_POOL, pool));
    record Move(ObjectName flow, MaterializedTableDefinition next, ChangePlan plan) {}
    Map<UUID, Move> moves = new LinkedHashMap<>();
    for (MaterializedTable flow : pipelines.movableFlows(table)) {
      MaterializedTableDefinition stored = tables.spec(flow).definition();
      MaterializedTableDefinition next = PipelineTables.onPool(stored, pool);
      ChangePlanner.Request request =
          planner.flowRequest(flow.objectName(), flow.getTopicName(), stored, flow.status(), next);
      ChangePlan plan = approved(remote.ask(current, request, planner::plan));
      moves.put(flow.getId(), new Move(flow.objectName(), next, plan));
    }
    Map<UUID, MaterializedTableDefinition> next = new LinkedHashMap<>();
    moves.forEach((id, move) -> next.put(id, move.next()));
    TableChange change = pipelines.moveTo(table, pool, next);
    moves.values().forEach(m -> planner.requireQuotaAtCommit(m.flow(), m.plan(), m.next()));
    return changed(name, "PIPELINE_TABLE", change);
  }

  @Override
  public StatementResult refreshTable(Statement.RefreshTable s) {
    ObjectName name = resolve(s.name());
    return changed(name, "PIPELINE_TABLE", pipelines.fullRefresh(name));
  }

  @Override
  public StatementResult showFlows(Statement.ShowFlows s) {
    List<MaterializedTable> found;
    if (s.table() != null) {
      found = tables.flows(pipelines.pipelineTable(resolve(s.table())));
    } else {
      found = pipelines.flowsIn(catalog, database);
    }
    return rows(TableQueries.FLOW_COLUMNS, found.stream().map(queries::flowRow).toList());
  }

  @Override
  public StatementResult createSourceTable(Statement.CreateSourceTable s) {
    ObjectName name = resolve(s.name());
    if (tables.find(name).isPresent()) {
      throw new ApiException(
          ErrorCode.ALREADY_EXISTS, "A materialized table named " + name + " already exists");
    }
    Optional<SourceTable> source = catalogs.findSourceTable(name);
    if (declarative && source.isPresent()) {
      if (SourceTableDefinition.of(s).equals(catalogs.forFlink(source.get()))) {
        return unchanged(name, "SOURCE_TABLE", "Table " + name + " is unchanged");
      }
      throw notInPlace(
          "Source table", name, "drop it (DROP TABLE: a plan never prunes source tables)");
    }
    if (source.isPresent()) {
      if (s.ifNotExists()) {
        return result(
            name, "SOURCE_TABLE", "SKIPPED", "Table " + name + " already exists; nothing done");
      }
      throw new ApiException(ErrorCode.ALREADY_EXISTS, "Table " + name + " already exists");
    }
    policy.checkSource(name, s.options());
    catalogs.registerSourceTable(name.catalog(), name.database(), SourceTableDefinition.of(s));
    return result(name, "SOURCE_TABLE", "CREATED", "Table " + name + " registered");
  }

  @Override
  public StatementResult dropTable(Statement.DropTable s) {
    ObjectName name = resolve(s.name());
    SourceTable table = catalogs.findSourceTable(name).orElse(null);
    if (table == null) {
      Optional<MaterializedTable> stored = tables.find(name);
      if (stored.isPresent() && tables.spec(stored.get()).kind() == TableSpec.Kind.PIPELINE_TABLE) {
        return changed(name, "PIPELINE_TABLE", tables.drop(name, s.ifExists()));
      }
      if (stored.isPresent()) {
        throw new ApiException(
            ErrorCode.CONFLICT, name + " is a materialized table; use DROP MATERIALIZED TABLE");
      }
      if (s.ifExists()) {
        return result(
            name, "SOURCE_TABLE", "SKIPPED", "Table " + name + " does not exist; nothing done");
      }
      throw new ApiException(ErrorCode.NOT_FOUND, "Table " + name + " does not exist");
    }
    Access.require(Role.ADMIN, name.catalog(), name.database());
    List<String> readers = lineage.readersOf(name);
    if (!readers.isEmpty()) {
      // Readers in databases the caller cannot see are counted, not named.
      List<String> named = new ArrayList<>();
      int unseen = 0;
      for (String reader : readers) {
        String[] parts = reader.split("\\.", 3);
        if (parts.length == 3 && Access.sees(parts[0], parts[1])) {
          named.add(reader);
        } else {
          unseen++;
        }
      }
      if (unseen > 0) {
        named.add(unseen + " table(s) of other databases");
      }
      throw new ApiException(
          ErrorCode.CONFLICT,
          "Table " + name + " is read by " + String.join(", ", named) + "; drop those first");
    }
    catalogs.dropSourceTable(table);
    return result(name, "SOURCE_TABLE", "DROPPED", "Table " + name + " dropped");
  }

  @Override
  public StatementResult showTables(Statement.ShowTables s) {
    ObjectName db = s.database() == null ? new ObjectName(catalog, null, database) : s.database();
    String inCatalog = db.database() != null ? db.database() : catalog;
    return rows(List.of("table_name", "type"), queries.tables(inCatalog, db.name()));
  }

  @Override
  public StatementResult use(Statement.Use s) {
    if (s.database() == null) {
      catalog = s.catalog();
    } else {
      if (s.catalog() != null) {
        catalog = s.catalog();
      }
      database = s.database();
    }
    return result(null, null, "OK", "Using " + catalog + "." + database);
  }

  /** Whether a stored CREATE TABLE ... FLOW says what {@code given} says, whatever its name. */
  private static boolean sameTable(
      Statement.CreatePipelineTable stored, Statement.CreatePipelineTable given) {
    return stored != null && Printer.print(renamed(stored)).equals(Printer.print(renamed(given)));
  }

  /** The statement with its {@code 'compute-pool'} TBLPROPERTY set to {@code pool}. */
  private static Statement.CreatePipelineTable onPool(
      Statement.CreatePipelineTable s, String pool) {
    Map<String, String> properties = new LinkedHashMap<>(s.tableProperties());
    properties.put(TableOptions.COMPUTE_POOL, pool);
    return s.withTableProperties(properties);
  }

  private static Statement.CreatePipelineTable renamed(Statement.CreatePipelineTable s) {
    return new Statement.CreatePipelineTable(
        new ObjectName(null, null, s.name().name()),
        s.schema(),
        s.partitionedBy(),
        s.clusterBy(),
        s.location(),
        s.comment(),
        s.tableProperties(),
        s.rowFilter(),
        s.flow());
  }

  /**
   * A declared object that exists with another definition and has no OR ALTER: what to do instead.
   */
  private static ApiException notInPlace(String what, ObjectName name, String instead) {
    return new ApiException(
        ErrorCode.CONFLICT,
        what
            + " "
            + name
            + " exists with another definition and is not changed in place: "
            + instead
            + ", then create it");
  }

  private StatementResult unchanged(ObjectName name, String type, String message) {
    return result(name, type, TableChange.Outcome.UNCHANGED.name(), message);
  }

  private StatementResult changed(ObjectName name, String type, TableChange change) {
    return result(name, type, change.outcome().name(), change.message());
  }

  private StatementResult result(ObjectName name, String type, String outcome, String message) {
    Resource resource =
        name == null ? null : new Resource(type, name.catalog(), name.database(), name.name());
    return new StatementResult(
        current.index(),
        current.statement().kind(),
        Secrets.redact(current.text()),
        resource,
        outcome,
        message,
        null,
        null);
  }

  private StatementResult rows(List<String> columns, List<List<Object>> rows) {
    return new StatementResult(
        current.index(),
        current.statement().kind(),
        Secrets.redact(current.text()),
        null,
        "OK",
        null,
        columns,
        rows);
  }
}
