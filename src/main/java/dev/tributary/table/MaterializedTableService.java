package dev.tributary.table;

import dev.tributary.catalog.CatalogDatabase;
import dev.tributary.catalog.CatalogService;
import dev.tributary.catalog.SourceTable;
import dev.tributary.catalog.SourceTableDefinition;
import dev.tributary.security.Access;
import dev.tributary.sql.Clauses;
import dev.tributary.sql.DeadLetterTable;
import dev.tributary.sql.Defaults;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Printer;
import dev.tributary.sql.RefreshSchedule;
import dev.tributary.sql.Statement;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.Json;
import dev.tributary.system.TributaryProperties;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BiPredicate;
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
  private final TributaryProperties properties;

  MaterializedTableService(
      CatalogService catalogs,
      MaterializedTableRepository tables,
      TableWriter writer,
      RefreshRequests refreshRequests,
      TopicNames topicNames,
      TributaryProperties properties) {
    this.properties = properties;
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
    return create(name, find(name), definition, orAlter, ifNotExists);
  }

  /**
   * As {@link #create(ObjectName, MaterializedTableDefinition, boolean, boolean)}, with the row the
   * caller read in this transaction ({@link #find}) instead of reading it again.
   */
  @Transactional
  public TableChange create(
      ObjectName name,
      Optional<MaterializedTable> existing,
      MaterializedTableDefinition definition,
      boolean orAlter,
      boolean ifNotExists) {
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
   * SUSPEND / RESUME of a pipeline table: each of its flows stops with a savepoint / resumes from
   * it. A failed flow is restarted by RESUME.
   */
  private TableChange suspendFlows(MaterializedTable table, boolean stop) {
    int changed = 0;
    for (MaterializedTable flow : flows(table)) {
      if (suspendFlow(flow, stop, "with table " + table.objectName())) {
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

  /**
   * Suspends (stop with a savepoint) or resumes (from it) one flow, unless it is so already; a
   * failed flow is restarted by RESUME. True if it changed.
   */
  boolean suspendFlow(MaterializedTable flow, boolean stop, String how) {
    if (flow.isDeletionRequested()) {
      return false;
    }
    TableSpec spec = spec(flow);
    if (spec.stopped() == stop && (stop || flow.getPhase() != Phase.FAILED)) {
      return false;
    }
    writer.respecify(flow, spec.withStopped(stop), flow.getDefinition(), false);
    writer.event(
        flow,
        TableEvent.Type.NORMAL,
        stop ? "SuspendRequested" : "ResumeRequested",
        (stop ? "Suspend" : "Resume") + " requested " + how);
    return true;
  }

  /** The flows of a pipeline table, by name. */
  @Transactional(readOnly = true)
  public List<MaterializedTable> flows(MaterializedTable table) {
    return tables.findByFlowOfOrderByName(table.getId());
  }

  void requestDeletion(MaterializedTable row) {
    writer.requestDeletion(row);
    writer.event(
        row,
        TableEvent.Type.NORMAL,
        "DropRequested",
        "Drop requested (generation " + row.getGeneration() + ")");
  }

  @Transactional
  public TableChange alter(ObjectName name, Statement.AlterAction action) {
    return alter(get(name), action);
  }

  /**
   * {@link #alter(ObjectName, Statement.AlterAction)} of a row already read in this transaction.
   */
  @Transactional
  public TableChange alter(MaterializedTable table, Statement.AlterAction action) {
    ObjectName name = table.objectName();
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
    return applied(get(name), action);
  }

  /** {@link #applied(ObjectName, Statement.AlterAction)} of a row already read. */
  @Transactional(readOnly = true)
  public MaterializedTableDefinition applied(
      MaterializedTable table, Statement.AlterAction action) {
    ObjectName name = table.objectName();
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
    return tables.findTable(name.catalog(), name.database(), name.name());
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

  /**
   * Up to {@code limit} tables of the database after the name {@code after} (null: from the first),
   * by name, optionally of one phase; 404 when the database does not exist.
   */
  @Transactional(readOnly = true)
  public List<MaterializedTable> page(
      String catalog, String database, Phase phase, String after, int limit) {
    return tables.pageByName(
        catalogs.requireDatabase(catalog, database).getId(),
        phase == null ? null : phase.name(),
        after,
        limit);
  }

  /**
   * Up to {@code limit} tables of the databases {@code shown} accepts, by qualified name, after
   * {@code after} (null: from the first): the databases are read whole (they are few), the tables a
   * page at a time.
   */
  @Transactional(readOnly = true)
  public List<MaterializedTable> pageAcross(
      BiPredicate<String, String> shown, String after, int limit) {
    List<Long> databases = databaseIds(shown);
    return databases.isEmpty() ? List.of() : tables.pageByQualifiedName(databases, after, limit);
  }

  /** The ids of the databases {@code shown} accepts (the databases are few: read whole). */
  private List<Long> databaseIds(BiPredicate<String, String> shown) {
    return catalogs.allDatabases().stream()
        .filter(d -> shown.test(d.getCatalog().getName(), d.getName()))
        .map(CatalogDatabase::getId)
        .toList();
  }

  /**
   * The tables and flows (a flow is a row of its own) of the catalog's databases {@code shown}
   * accepts, none of another catalog or database.
   */
  @Transactional(readOnly = true)
  public List<MaterializedTable> inCatalog(String catalog, BiPredicate<String, String> shown) {
    List<Long> databases = databaseIds((c, d) -> c.equals(catalog) && shown.test(c, d));
    return databases.isEmpty() ? List.of() : tables.findRowsIn(databases);
  }

  /** The tables (not flows) of the databases {@code shown} accepts, in one query. */
  @Transactional(readOnly = true)
  public List<MaterializedTable> inDatabases(BiPredicate<String, String> shown) {
    List<Long> databases = databaseIds(shown);
    return databases.isEmpty() ? List.of() : tables.findTablesIn(databases);
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

  TableChange insert(ObjectName name, TableSpec spec) {
    if (catalogs.findSourceTable(name).isPresent()) {
      throw new ApiException(
          ErrorCode.ALREADY_EXISTS, "A source table named " + name + " already exists");
    }
    String topic = topicNames.of(name);
    requireTopicFree(name, topic);
    ensureDeadLetterTable(name, spec);
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
  public Optional<ObjectName> topicOwner(String topic) {
    return tables.findByTopicNameAndFlowOfIsNull(topic).map(MaterializedTable::objectName);
  }

  /**
   * {@code 'error-handling.mode' = 'log'} (a WITH option, or a pipeline table's TBLPROPERTY): the
   * dead-letter table is a table of the same database with its columns, put in the catalog now if
   * it is not there (its topic is created before the job starts). Anything else of that name is a
   * 400, so nothing is accepted that cannot log.
   */
  private void ensureDeadLetterTable(ObjectName name, TableSpec spec) {
    Map<String, String> options =
        switch (spec.kind()) {
          case MATERIALIZED_TABLE -> Defaults.effective(spec.definition()).options();
          case PIPELINE_TABLE ->
              spec.pipeline() == null ? Map.of() : spec.pipeline().tableProperties();
          case FLOW -> Map.of(); // the dead-letter table of its pipeline table
        };
    if (!DeadLetterTable.logs(options)) {
      return;
    }
    String written = options.getOrDefault(DeadLetterTable.TARGET, DeadLetterTable.DEFAULT_TARGET);
    String invalid = DeadLetterTable.invalidTarget(written);
    ObjectName target = DeadLetterTable.target(name, options);
    if (invalid == null
        && (!target.catalog().equals(name.catalog())
            || !target.database().equals(name.database()))) {
      invalid =
          "The dead-letter table "
              + target
              + " must be in the table's own database "
              + name.catalog()
              + "."
              + name.database();
    } else if (invalid == null && target.equals(name)) {
      invalid = "A table cannot be its own dead-letter table ('" + DeadLetterTable.TARGET + "')";
    } else if (invalid == null && find(target).isPresent()) {
      invalid =
          target
              + " is a materialized table; the dead-letter table ('"
              + DeadLetterTable.TARGET
              + "') must be a table of its own, with the dead-letter columns";
    }
    if (invalid != null) {
      throw new ApiException(ErrorCode.INVALID_OPTION_VALUE, invalid);
    }
    Optional<SourceTable> existing = catalogs.findSourceTable(target);
    if (existing.isPresent()) {
      if (!DeadLetterTable.hasItsColumns(existing.get().definition().schema())) {
        throw new ApiException(
            ErrorCode.INVALID_OPTION_VALUE,
            "The table "
                + target
                + " exists and is not a dead-letter table: its columns are not "
                + DeadLetterTable.schema().columns().stream().map(c -> c.name()).toList());
      }
      return;
    }
    String topic = topicNames.of(target);
    requireTopicFree(target, topic);
    catalogs.registerSourceTable(
        target.catalog(),
        target.database(),
        new SourceTableDefinition(
            target.name(),
            DeadLetterTable.schema(),
            "Dead-letter table: source records that tables with 'error-handling.mode' = 'log'"
                + " could not read",
            DeadLetterTable.options(
                topic,
                properties.kafka().bootstrapServers(),
                properties.schemaRegistry().url().toString())));
  }

  private void requireTopicFree(ObjectName name, String topic) {
    // A source table of another database that already reads the topic would read this table's
    // rows past its database's grants: the topic is taken.
    for (CatalogService.SourceTopics source : catalogs.sourceTopicsReading(topic)) {
      ObjectName s = source.table();
      boolean elsewhere =
          !s.catalog().equals(name.catalog()) || !s.database().equals(name.database());
      if (elsewhere) {
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

  TableChange write(
      MaterializedTable table, TableSpec spec, boolean newVersion, String reason, String message) {
    if (newVersion) {
      ensureDeadLetterTable(table.objectName(), spec);
    }
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
            + (refresh.state() == TableRefresh.State.WAITING
                ? " waits for the running refresh to end, then runs"
                : " " + refresh.state().name().toLowerCase(Locale.ROOT))
            + "; GET .../refreshes/"
            + refresh.number()
            + "?waitSeconds=60 answers when it has ended");
  }

  /**
   * A manual refresh of a FULL table, now, of the whole table or of one partition (also of a
   * suspended table, as in Flink). While another refresh of the table is active it waits behind it
   * (see {@link RefreshRequests}).
   */
  @Transactional
  public TableRefresh refresh(ObjectName name, Map<String, String> partition) {
    MaterializedTable table = get(name);
    requireNotDeleting(table);
    return refreshRequests.request(table, partition);
  }

  TableChange unchanged(MaterializedTable table, String message) {
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

  public static ApiException notFound(ObjectName name) {
    return new ApiException(ErrorCode.NOT_FOUND, "Materialized table " + name + " does not exist");
  }
}
