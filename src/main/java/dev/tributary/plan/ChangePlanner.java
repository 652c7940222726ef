package dev.tributary.plan;

import dev.tributary.plan.ChangePlan.Action;
import dev.tributary.plan.ChangePlan.ColumnChange;
import dev.tributary.plan.ChangePlan.SourceStart;
import dev.tributary.plan.ChangePlan.SubjectCheck;
import dev.tributary.plan.ChangePlan.ValueChange;
import dev.tributary.port.DependencyUnavailableException;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.RemoteSystemException;
import dev.tributary.port.SchemaRegistry;
import dev.tributary.port.Topics;
import dev.tributary.sql.Capabilities;
import dev.tributary.sql.Clauses;
import dev.tributary.sql.Column;
import dev.tributary.sql.Defaults;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.QueryAnalysis;
import dev.tributary.sql.Statement;
import dev.tributary.sql.TableOptions;
import dev.tributary.sql.TableSchema;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.ReadOnce;
import dev.tributary.system.TributaryProperties;
import dev.tributary.table.MaterializedTable;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.TableStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

/**
 * Plans a change to a materialized table before anything is touched: the new output schema (asked
 * of Flink), whether the registry accepts it under the subject's compatibility level, key,
 * changelog and topic config changes, whether the job restarts, where its sources start, and what
 * state is lost. Only reads: Flink sessions that declare and describe, registry compatibility
 * checks, topic descriptions.
 */
@Component
public class ChangePlanner {

  private static final Logger log = LoggerFactory.getLogger(ChangePlanner.class);

  private final QueryPlanner queries;
  private final Topics topics;
  private final SchemaRegistry registry;

  /** The Kafka cluster {@link #topics} reads: replay counts are given for its topics only. */
  private final String bootstrapServers;

  /**
   * Checks a table's compute pool at submit; null for a planner with no clusters (tools, tests).
   */
  private final Placement placement;

  /** Where evolutions' savepoints are. */
  private final String savepointDir;

  /**
   * Whether this service reads savepoints under a directory, so that a resumed source continues at
   * the old job's exact offsets. Asked per plan, and only by a plan that resumes a source: the
   * store can be down, or its credentials changed, while the service runs.
   */
  private final Predicate<String> readsSavepoints;

  @Autowired
  public ChangePlanner(
      QueryPlanner queries,
      Topics topics,
      SchemaRegistry registry,
      FlinkJobs jobs,
      Placement placement,
      TributaryProperties properties) {
    this(
        queries,
        topics,
        registry,
        properties.flink().savepointDir(),
        jobs::readsSavepoints,
        properties.kafka().bootstrapServers(),
        placement);
  }

  /** A planner that counts no replays, with savepoints where {@code jobs} may or may not read. */
  public ChangePlanner(
      QueryPlanner queries,
      Topics topics,
      SchemaRegistry registry,
      FlinkJobs jobs,
      String savepointDir) {
    this(queries, topics, registry, savepointDir, jobs::readsSavepoints, null, null);
  }

  /** A planner that counts no replays (tools and tests without a Kafka cluster of their own). */
  public ChangePlanner(QueryPlanner queries, Topics topics, SchemaRegistry registry) {
    this(queries, topics, registry, null, directory -> true, null, null);
  }

  private ChangePlanner(
      QueryPlanner queries,
      Topics topics,
      SchemaRegistry registry,
      String savepointDir,
      Predicate<String> readsSavepoints,
      String bootstrapServers,
      Placement placement) {
    this.queries = queries;
    this.placement = placement;
    this.topics = topics;
    this.registry = registry;
    this.savepointDir = savepointDir;
    this.readsSavepoints = readsSavepoints;
    this.bootstrapServers = bootstrapServers;
  }

  /**
   * What the plan needs of an existing table: its definition, and what the reconciler recorded (the
   * output schema, whether its topic and subjects were created).
   */
  public record Current(
      MaterializedTableDefinition definition,
      List<FlinkSql.Column> schema,
      boolean topicCreated,
      boolean subjectsRegistered) {

    public static Current of(MaterializedTableDefinition definition, TableStatus status) {
      return new Current(
          definition, status.schema(), status.topic() != null, status.valueSubject() != null);
    }

    /** The current state of a stored materialized table; empty for none or a pipeline table. */
    public static Optional<Current> of(
        Optional<MaterializedTable> table, MaterializedTableService tables) {
      return table
          .filter(t -> tables.spec(t).definition() != null)
          .map(t -> of(tables.spec(t).definition(), t.status()));
    }
  }

  /**
   * Everything a plan reads from the store, captured up front: planning a request makes remote
   * calls only (Flink, Kafka, the registry), so it runs outside any database transaction, and two
   * equal requests are the same question. {@code current} is null for a new table.
   */
  public record Request(
      ObjectName name,
      String topic,
      Current current,
      MaterializedTableDefinition next,
      QueryPlanner.Snapshot catalog,
      boolean sharedTopic) {

    public Request(
        ObjectName name,
        String topic,
        Current current,
        MaterializedTableDefinition next,
        QueryPlanner.Snapshot catalog) {
      this(name, topic, current, next, catalog, false);
    }
  }

  /** Captures a plan's inputs; reads the catalog (in the caller's transaction, if any). */
  public Request request(
      ObjectName name, String topic, Optional<Current> current, MaterializedTableDefinition next) {
    List<String> reads = new ArrayList<>();
    reads.add(next.query());
    current.ifPresent(c -> reads.add(c.definition().query()));
    return new Request(name, topic, current.orElse(null), next, queries.snapshot(name, reads));
  }

  /**
   * Captures the plan of giving a flow's job, stored as {@code stored} with {@code status}, the
   * definition {@code next}: a job that writes into its table's topic, which it does not own.
   */
  public Request flowRequest(
      ObjectName flow,
      String topic,
      MaterializedTableDefinition stored,
      TableStatus status,
      MaterializedTableDefinition next) {
    return new Request(
        flow,
        topic,
        Current.of(stored, status),
        next,
        queries.snapshot(flow, List.of(stored.query(), next.query())),
        true);
  }

  /**
   * The definition to plan and store when {@code next} replaces a table's whole definition: placed
   * on a compute pool when it names none (see {@link Placement#placed}).
   */
  public MaterializedTableDefinition placed(
      ObjectName name, Optional<Current> current, MaterializedTableDefinition next) {
    return placement == null
        ? next
        : placement.placed(name, current.map(Current::definition), next);
  }

  /**
   * A new pipeline table's TBLPROPERTIES, placed as a new materialized table is: when they name no
   * {@code 'compute-pool'}, the database's or catalog's default pool is written into them.
   */
  public Map<String, String> placedProperties(ObjectName name, Map<String, String> properties) {
    if (placement == null || properties.containsKey(TableOptions.COMPUTE_POOL)) {
      return properties;
    }
    Optional<String> pool = placement.defaultFor(name);
    if (pool.isEmpty()) {
      return properties;
    }
    Map<String, String> placed = new TreeMap<>(properties);
    placed.put(TableOptions.COMPUTE_POOL, pool.get());
    return placed;
  }

  /**
   * A pipeline table's {@code 'compute-pool'} TBLPROPERTY, checked when the table is created: the
   * pool exists and is not being drained. Its flows' jobs are checked for room as they come.
   */
  public void requirePool(ObjectName name, Map<String, String> properties) {
    String pool = properties.get(TableOptions.COMPUTE_POOL);
    if (placement != null && pool != null) {
      placement.requirePool(name, pool);
    }
  }

  /**
   * In the transaction that stored {@code stored} as planned by {@code plan}: when the plan placed
   * the table on a pool (a new table, a move, a FULL table turned continuous), the database's quota
   * there is checked again, serialised with other submits (409 {@code QUOTA_EXCEEDED}; the
   * transaction rolls back).
   */
  public void requireQuotaAtCommit(
      ObjectName name, ChangePlan plan, MaterializedTableDefinition stored) {
    if (placement == null || plan == null || plan.rejected()) {
      return;
    }
    boolean placed =
        plan.action() == Action.CREATE
            || plan.changes().stream()
                .anyMatch(
                    c ->
                        c.property().equals("computePool")
                            || (c.property().equals("refreshMode")
                                && c.before().equals(Clauses.RefreshMode.FULL.name())));
    if (placed) {
      MaterializedTableDefinition effective = Defaults.effective(stored);
      placement.requireQuotaAtCommit(
          name,
          TableOptions.pool(effective.options()),
          effective.refreshMode() != Clauses.RefreshMode.FULL);
    }
  }

  /** The plan of a change, read from the store and planned in one go. */
  public ChangePlan plan(
      ObjectName name, String topic, Optional<Current> current, MaterializedTableDefinition next) {
    return plan(request(name, topic, current, next));
  }

  /**
   * A note when the pool's cluster has no free slot for the job now (Flink queues it), or could not
   * be asked.
   */
  private static void waitsForSlots(Placement.Room room, List<String> notes) {
    if (room.unanswered() != null) {
      notes.add(
          "Compute pool "
              + room.pool()
              + " did not answer ("
              + room.unanswered()
              + "): its budget and free slots were not checked; the job is submitted once it"
              + " answers");
    } else if (room.waits()) {
      notes.add(
          "Compute pool "
              + room.pool()
              + "'s cluster has "
              + room.available()
              + " free task slot"
              + (room.available() == 1 ? "" : "s")
              + " of "
              + room.total()
              + " now and the job needs "
              + room.needed()
              + ": Flink queues it until one frees ('Waiting for task slots' in its status)");
    }
  }

  /** A rejected plan is a 409 that carries the plan; nothing is stored. */
  public static ChangePlan approved(ChangePlan plan) {
    if (plan.rejected()) {
      throw new ApiException(
          ErrorCode.PLAN_REJECTED,
          "The change to " + plan.table() + " is refused: " + String.join("; ", plan.rejections()),
          Map.of("plan", plan));
    }
    return plan;
  }

  /**
   * The plan of giving {@code name} the definition {@code next}; {@code current} is empty for a new
   * table. Bad definitions raise a 4xx; a plan that cannot be applied safely has rejections.
   */
  public ChangePlan plan(Request request) {
    QueryPlanner queries = this.queries.over(request.catalog());
    try {
      return planAsGiven(request, queries);
    } catch (ApiException e) {
      Optional<String> fallback = autoFallback(request, queries, e);
      if (fallback.isEmpty()) {
        throw e;
      }
      MaterializedTableDefinition full = asFull(request.next());
      Request asFull =
          new Request(request.name(), request.topic(), request.current(), full, request.catalog());
      return planAsGiven(asFull, queries).withAutoFallback(fallback.get());
    }
  }

  /**
   * REFRESH_MODE AUTO chose CONTINUOUS, and Flink cannot run the query as a stream (a sort on a
   * column that is not a time attribute, say) but can as scheduled batch refreshes: AUTO falls back
   * to FULL, as Flink's AUTO would pick the mode that can run. Only for a new table; an explicit
   * CONTINUOUS, or a change of an existing table, gets the 400.
   */
  private Optional<String> autoFallback(Request request, QueryPlanner queries, ApiException e) {
    MaterializedTableDefinition next = request.next();
    boolean auto = next.refreshMode() == null || next.refreshMode() == Clauses.RefreshMode.AUTO;
    if (!(e instanceof RefusedByFlink)
        || !auto
        || request.current() != null
        || Defaults.effective(next).refreshMode() != Clauses.RefreshMode.CONTINUOUS) {
      return Optional.empty();
    }
    try {
      queries.validate(request.name(), next.withRefreshMode(Clauses.RefreshMode.FULL));
    } catch (RuntimeException batchAlso) {
      log.info(
          "{}: no fallback to FULL, batch mode refuses it too: {}",
          request.name(),
          batchAlso.getMessage());
      return Optional.empty();
    }
    return Optional.of(
        "REFRESH_MODE AUTO falls back to FULL: Flink cannot run the query as a stream ("
            + e.getMessage()
            + "), but it runs as scheduled batch refreshes every "
            + Defaults.effective(next).freshness().sql()
            + "; the table is stored with REFRESH_MODE = FULL and that FRESHNESS");
  }

  /**
   * The definition AUTO fell back to: REFRESH_MODE = FULL with the freshness AUTO had (an explicit
   * FULL without one would get FULL's default of an hour). What is planned is what is stored.
   */
  public static MaterializedTableDefinition asFull(MaterializedTableDefinition auto) {
    MaterializedTableDefinition full = auto.withRefreshMode(Clauses.RefreshMode.FULL);
    return auto.freshness() != null ? full : full.withFreshness(Defaults.DEFAULT_FRESHNESS);
  }

  /** A 400 INVALID_QUERY whose reason is Flink's own (not a check of the definition). */
  private static final class RefusedByFlink extends ApiException {
    RefusedByFlink(String message, Map<String, Object> properties) {
      super(ErrorCode.INVALID_QUERY, message, properties);
    }
  }

  private ChangePlan planAsGiven(Request request, QueryPlanner queries) {
    ObjectName name = request.name();
    MaterializedTableDefinition next = request.next();
    Capabilities.refusal(next)
        .ifPresent(
            r -> {
              throw new ApiException(r.code(), r.message() + " (table " + name + ")");
            });
    List<String> notes = new ArrayList<>();
    MaterializedTableDefinition effective = Defaults.effective(next);
    readAhead(request);
    requireFreshnessFits(name, effective, notes);
    if (placement != null) {
      // The query is validated on the pool's gateway: a pool that does not exist is a 400 first.
      placement.requireKnown(name, TableOptions.pool(effective.options()));
    }
    List<FlinkSql.Column> columns = validate(queries, name, next, notes);
    if (columns != null) {
      checkExpectations(queries, name, next);
      requireWritable(name, request.topic(), effective, columns);
    }
    if (request.current() == null) {
      if (!request.sharedTopic()) {
        requireNewTopic(request.topic(), notes); // a flow writes into its table's topic
      }
      boolean full = effective.refreshMode() == Clauses.RefreshMode.FULL;
      if (placement != null && full) {
        placement.requirePlace(name, TableOptions.pool(effective.options()));
      } else if (placement != null) {
        waitsForSlots(placement.requireRoom(name, TableOptions.pool(effective.options())), notes);
      }
      return new ChangePlan(
          name.toString(),
          Action.CREATE,
          !full,
          full
              ? "no job runs at CREATE: refreshes run on schedule (every "
                  + effective.freshness().sql()
                  + "), each one a bounded job"
              : "a new job starts",
          false,
          full ? List.of() : starts(queries, name, effective, Set.of(), false),
          List.of(),
          List.of(),
          List.of(),
          List.of(),
          notes,
          List.of(),
          null);
    }
    return change(queries, request, effective, columns, notes);
  }

  /**
   * Starts, beside Flink's validation of the query (the plan's longest step), the reads the plan
   * makes whatever the query turns out to be: a new table's topic; a changed table's topic contents
   * and its subjects as they are registered. Each is awaited where the plan needs it, as it was
   * read there before; one the plan never reaches (the query refused) was asked for nothing.
   */
  private void readAhead(Request request) {
    String topic = request.topic();
    Current current = request.current();
    if (current == null) {
      if (!request.sharedTopic()) {
        ReadOnce.ahead(topicExists(topic), () -> topics.exists(topic));
      }
      return;
    }
    if (current.definition().equals(request.next())) {
      return; // unchanged: the plan reads nothing
    }
    if (current.topicCreated()) {
      ReadOnce.ahead(holdsRecords(topic), () -> topics.hasRecords(topic));
    }
    if (current.subjectsRegistered()) {
      // The subjects the current definition registered; a change of key adds or drops one, read
      // where it is needed.
      MaterializedTableDefinition before = Defaults.effective(current.definition());
      for (PipelinePlan.Subject subject :
          new PipelinePlan(request.name(), topic, "", before, columns(current), "", "")
              .subjects()) {
        ReadOnce.ahead(latestSchema(subject.name()), () -> registry.latest(subject.name()));
      }
    }
  }

  /** The columns the current definition writes: as Flink described them, else as declared. */
  private static List<FlinkSql.Column> columns(Current current) {
    return current.schema().isEmpty() ? declared(current.definition()) : current.schema();
  }

  private static List<String> topicExists(String topic) {
    return List.of("topicExists", topic);
  }

  private static List<String> holdsRecords(String topic) {
    return List.of("hasRecords", topic);
  }

  private static List<String> latestSchema(String subject) {
    return List.of("latestSchema", subject);
  }

  private ChangePlan change(
      QueryPlanner queries,
      Request request,
      MaterializedTableDefinition effective,
      List<FlinkSql.Column> columns,
      List<String> notes) {
    ObjectName name = request.name();
    Current current = request.current();
    MaterializedTableDefinition next = request.next();
    MaterializedTableDefinition before = Defaults.effective(current.definition());
    List<FlinkSql.Column> oldColumns = columns(current);
    if (columns == null) {
      columns = TableSchema.hasDeclaredTypes(next.schema()) ? declared(next) : oldColumns;
    }
    if (current.definition().equals(next)) {
      return new ChangePlan(
          name.toString(),
          Action.UNCHANGED,
          false,
          null,
          false,
          List.of(),
          List.of(),
          List.of(),
          List.of(),
          List.of(),
          List.of("The definition is the stored one; nothing changes"),
          List.of(),
          null);
    }
    PipelinePlan oldPlan = new PipelinePlan(name, request.topic(), "", before, oldColumns, "", "");
    PipelinePlan newPlan = new PipelinePlan(name, request.topic(), "", effective, columns, "", "");
    boolean evolve =
        !PipelinePlan.fingerprint(before, oldColumns)
            .equals(PipelinePlan.fingerprint(effective, columns));
    List<String> rejections = new ArrayList<>();
    List<ValueChange> changes = new ArrayList<>();
    boolean filled = current.topicCreated() && hasRecords(request.topic(), notes);
    compare(changes, "refreshMode", before.refreshMode(), effective.refreshMode());
    boolean wasFull = before.refreshMode() == Clauses.RefreshMode.FULL;
    boolean full = effective.refreshMode() == Clauses.RefreshMode.FULL;
    boolean freshness = !before.freshness().equals(effective.freshness());
    compare(changes, "freshness", before.freshness().sql(), effective.freshness().sql());
    String poolBefore = TableOptions.pool(before.options());
    String pool = TableOptions.pool(effective.options());
    boolean moves = !poolBefore.equals(pool);
    compare(changes, "computePool", poolBefore, pool);
    if (placement != null && !full && (moves || wasFull)) {
      waitsForSlots(placement.requireRoom(name, pool), notes); // a continuous job starts there
    } else if (placement != null && moves) {
      placement.requirePlace(name, pool);
    }
    shape(changes, rejections, oldPlan, newPlan, filled, name);
    topicConfigs(changes, oldPlan, newPlan);
    List<SubjectCheck> subjects =
        current.subjectsRegistered() ? subjects(newPlan, rejections, notes) : List.of();
    Set<ObjectName> oldSources = Set.copyOf(queries.sources(name, before.query()));
    String restart;
    if (wasFull && full) {
      restart = null; // no job runs between refreshes: the next refresh runs the new definition
      if (evolve) {
        notes.add("A FULL table: the new definition applies at the next refresh");
      }
      if (freshness) {
        notes.add("The refresh schedule changes to every " + effective.freshness().sql());
      }
    } else if (full) {
      restart =
          "the continuous job stops with a savepoint and the table refreshes on schedule (every "
              + effective.freshness().sql()
              + "); the topic and its content stay";
    } else if (wasFull) {
      restart =
          "the refresh schedule is removed and a continuous job starts, which rewrites the"
              + " topic's keys; the topic and its content stay";
    } else {
      restart =
          evolve
              ? "the job stops with a savepoint and a job of the new definition starts; the old"
                  + " job's state is discarded"
              : freshness
                  ? "the job stops with a savepoint and restarts from it with checkpoint interval "
                      + effective.freshness().sql()
                      + "; state is kept"
                  : !Objects.equals(
                          before.options().get("error-handling.mode"),
                          effective.options().get("error-handling.mode"))
                      ? "the job stops with a savepoint and restarts from it, its sources read with"
                          + " 'error-handling.mode' = '"
                          + effective.options().getOrDefault("error-handling.mode", "(none)")
                          + "'; state is kept"
                      : null;
      if (moves) {
        restart =
            restart == null
                ? "the job stops with a savepoint on compute pool "
                    + poolBefore
                    + " and restarts from it on "
                    + pool
                    + "; state is kept"
                : restart + "; the job runs on compute pool " + pool + " from then on";
      }
    }
    boolean continuousStart = !full && (evolve || wasFull);
    boolean stateDiscarded = evolve && !full && !wasFull;
    List<ChangePlan.Warning> warnings = new ArrayList<>();
    if (stateDiscarded
        && effective.startMode().kind().resumes()
        && QueryAnalysis.keepsState(effective.query())) {
      warnings.add(
          new ChangePlan.Warning(
              ChangePlan.Warning.STATE_DISCARDED,
              "The query keeps state (an aggregation, a join or a deduplication), which the"
                  + " evolution discards while the sources resume where the old job stopped: each"
                  + " key the new job writes will hold a value computed from the rows read after"
                  + " the evolution only, not from all rows. Keep it so (as Confluent's"
                  + " materialized tables do), or rebuild: START_MODE = FROM_BEGINNING replays the"
                  + " sources from the beginning into the same topic, so every key ends with its"
                  + " full value"
                  + rebuildCost(queries, name, effective)));
    } else if (stateDiscarded && QueryAnalysis.keepsState(effective.query())) {
      notes.add(
          "The query's state is rebuilt: the sources are read from "
              + effective.startMode().fallback()
              + " again, so every key ends with its value over all those rows");
    }
    List<SourceStart> starts =
        continuousStart ? starts(queries, name, effective, oldSources, true) : List.of();
    compare(
        changes,
        RESUME_OFFSETS,
        before.options().getOrDefault(RESUME_OFFSETS, EXACT),
        effective.options().getOrDefault(RESUME_OFFSETS, EXACT));
    if (starts.stream().anyMatch(s -> s.from().equals(FROM_COMMITTED))) {
      String inexact =
          "The service cannot read the savepoints at "
              + savepointDir
              + ", so the sources the old job read would continue from the offsets they last"
              + " committed to the table's consumer group, not from the exact offsets of the old"
              + " job's final savepoint: the rows of up to one checkpoint interval ("
              + effective.freshness().sql()
              + ") may be written again.";
      if (acceptsCommittedOffsets(effective)) {
        warnings.add(
            new ChangePlan.Warning(
                ChangePlan.Warning.OFFSETS_FROM_COMMITTED,
                inexact
                    + " Accepted by WITH ('resume.offsets' = 'exact-or-committed'); give the"
                    + " service read access to that storage (TRIBUTARY_FLINK_STORAGE_*) to continue"
                    + " exactly"));
      } else {
        rejections.add(
            inexact
                + " Give the service read access to that storage (TRIBUTARY_FLINK_STORAGE_*), or"
                + " accept the repeats with WITH ('resume.offsets' = 'exact-or-committed')");
      }
    }
    return new ChangePlan(
        name.toString(),
        evolve ? Action.EVOLVE : Action.CHANGE,
        restart != null,
        restart,
        stateDiscarded,
        starts,
        columnChanges(oldColumns, columns),
        subjects,
        changes,
        rejections,
        notes,
        warnings,
        null);
  }

  /** Key, changelog mode, partitions and formats: readers of a topic with records rely on them. */
  private static void shape(
      List<ValueChange> changes,
      List<String> rejections,
      PipelinePlan before,
      PipelinePlan after,
      boolean filled,
      ObjectName name) {
    Map<String, String[]> shape = new LinkedHashMap<>();
    shape.put("key", new String[] {before.keyColumns().toString(), after.keyColumns().toString()});
    shape.put("changelog.mode", new String[] {before.changelogMode(), after.changelogMode()});
    shape.put(
        "partitions",
        new String[] {
          String.valueOf(before.topic().partitions()), String.valueOf(after.topic().partitions())
        });
    for (String format : List.of("key.format", "value.format")) {
      shape.put(
          format,
          new String[] {
            before.effective().options().get(format), after.effective().options().get(format)
          });
    }
    shape.forEach(
        (property, values) -> {
          if (!Objects.equals(values[0], values[1])) {
            changes.add(new ValueChange(property, values[0], values[1]));
            if (filled) {
              rejections.add(
                  "The "
                      + property
                      + " would change from "
                      + values[0]
                      + " to "
                      + values[1]
                      + " while topic "
                      + before.topic().name()
                      + " holds records that its readers decode by the old one; this needs DROP"
                      + " and CREATE");
            }
          }
        });
  }

  private static void topicConfigs(
      List<ValueChange> changes, PipelinePlan before, PipelinePlan after) {
    for (String key : PipelinePlan.MANAGED_TOPIC_CONFIGS) {
      String was = before.topic().configs().get(key);
      String will = after.topic().configs().get(key);
      if (!Objects.equals(was, will)) {
        changes.add(
            new ValueChange(
                "topic " + key,
                was == null ? "(broker default)" : was,
                will == null ? "(broker default)" : will));
      }
    }
  }

  private List<SubjectCheck> subjects(
      PipelinePlan plan, List<String> rejections, List<String> notes) {
    List<SubjectCheck> checks = new ArrayList<>();
    try {
      for (PipelinePlan.Subject subject : plan.subjects()) {
        Optional<SchemaRegistry.RegisteredSchema> latest =
            ReadOnce.read(latestSchema(subject.name()), () -> registry.latest(subject.name()));
        if (latest.isEmpty()) {
          checks.add(new SubjectCheck(subject.name(), "register", true, "A new subject"));
        } else if (latest.get().schema().equals(subject.schema())) {
          checks.add(new SubjectCheck(subject.name(), "unchanged", true, null));
        } else {
          boolean ok = registry.isCompatible(subject.name(), subject.schema());
          String level =
              registry.compatibility(subject.name()).map(Enum::name).orElse("the global level");
          String message =
              ok
                  ? "A new version, compatible under " + level
                  : "The new schema is incompatible with version "
                      + latest.get().version()
                      + " under "
                      + level
                      + "; readers of the topic could not decode one of them";
          checks.add(new SubjectCheck(subject.name(), "new version", ok, message));
          if (!ok) {
            rejections.add("Subject " + subject.name() + ": " + message);
          }
        }
      }
    } catch (DependencyUnavailableException e) {
      notes.add("Schema compatibility not checked now (" + e.getMessage() + ")");
    }
    return checks;
  }

  /** Where each source of the new job starts, by START_MODE. */
  private List<SourceStart> starts(
      QueryPlanner queries,
      ObjectName name,
      MaterializedTableDefinition effective,
      Set<ObjectName> readBefore,
      boolean countReplay) {
    Clauses.StartMode mode = effective.startMode();
    String fallback = mode.fallback();
    boolean resume = mode.kind().resumes();
    boolean fromBeginning =
        mode.kind() == Clauses.StartMode.Kind.FROM_BEGINNING
            || mode.kind() == Clauses.StartMode.Kind.RESUME_OR_FROM_BEGINNING;
    // Counted for a change of an existing table (a new one replays nothing it had), and only for
    // topics of the cluster the service reads: another cluster's topic of that name is not it.
    Map<ObjectName, String> topicsRead = new LinkedHashMap<>();
    if (fromBeginning && countReplay && bootstrapServers != null) {
      for (Statement.CreateSourceTable source :
          queries.sourceDeclarations(name, effective.query())) {
        String connector = source.options().getOrDefault("connector", "");
        if ((connector.equals("kafka") || connector.equals("upsert-kafka"))
            && bootstrapServers.equals(source.options().get("properties.bootstrap.servers"))) {
          topicsRead.put(source.name(), source.options().get("topic"));
        }
      }
    }
    List<SourceStart> starts = new ArrayList<>();
    Boolean exact = null; // asked of the storage once, and only if a source resumes
    for (ObjectName source : queries.sources(name, effective.query())) {
      boolean resumes = resume && readBefore.contains(source);
      if (resumes && exact == null) {
        exact = savepointDir == null || readsSavepoints.test(savepointDir);
      }
      String topic = topicsRead.get(source);
      starts.add(
          new SourceStart(
              source.toString(),
              resumes ? (exact ? FROM_SAVEPOINT : FROM_COMMITTED) : fallback,
              resumes || !fromBeginning || topic == null ? null : retained(topic)));
    }
    return starts;
  }

  /**
   * The option that says how an evolution may resume its sources: {@code exact} (the default) only
   * at the old job's final savepoint offsets, so a plan that cannot read them is refused; {@code
   * exact-or-committed} also from the consumer group's committed offsets, which may repeat rows.
   */
  public static final String RESUME_OFFSETS = "resume.offsets";

  static final String EXACT = "exact";

  /**
   * Whether the definition accepts a resume from committed offsets when the exact ones are lost.
   */
  public static boolean acceptsCommittedOffsets(MaterializedTableDefinition effective) {
    return "exact-or-committed".equals(effective.options().get(RESUME_OFFSETS));
  }

  static final String FROM_SAVEPOINT = "where the previous job stopped (its final savepoint)";

  static final String FROM_COMMITTED =
      "the offsets the previous job last committed (its savepoint cannot be read here)";

  /** What a rebuild from the beginning reads again, per Kafka source, as the plan's text. */
  private String rebuildCost(
      QueryPlanner queries, ObjectName name, MaterializedTableDefinition effective) {
    List<String> parts = new ArrayList<>();
    MaterializedTableDefinition rebuild =
        effective.withStartMode(Clauses.StartMode.of(Clauses.StartMode.Kind.FROM_BEGINNING));
    for (SourceStart start : starts(queries, name, rebuild, Set.of(), true)) {
      if (start.replayOffsets() != null) {
        parts.add(start.replayOffsets() + " offsets of " + start.source());
      }
    }
    return parts.isEmpty() ? "" : " (it reads again " + String.join(", ", parts) + ")";
  }

  /** The offsets a topic holds, or null when Kafka cannot say now (the plan goes on without). */
  private Long retained(String topic) {
    try {
      // Many plans of one script ask about the same topics: Kafka is asked once per script.
      return ReadOnce.read(
          List.of("retainedOffsets", topic), () -> topics.retainedOffsets(topic).orElse(null));
    } catch (RemoteSystemException | UnsupportedOperationException e) {
      return null;
    }
  }

  private static List<FlinkSql.Column> validate(
      QueryPlanner queries, ObjectName name, MaterializedTableDefinition next, List<String> notes) {
    try {
      return queries.validate(name, next).columns();
    } catch (QueryPlanner.InvalidQueryException e) {
      Map<String, Object> properties = e.properties();
      String message = "Invalid query for " + name + ": " + e.getMessage();
      throw e.byFlink()
          ? new RefusedByFlink(message, properties)
          : new ApiException(ErrorCode.INVALID_QUERY, message, properties);
    } catch (DependencyUnavailableException e) {
      log.info("Flink unreachable; {} is checked by the reconciler: {}", name, e.getMessage());
      notes.add("Query not checked now: Flink is unreachable; the reconciler checks it");
      return null;
    }
  }

  /**
   * Every column can be written in the table's format: the registry schemas are derived here, as
   * the reconciler will derive them, so a type the format cannot carry (TIMESTAMP_LTZ in Avro, a
   * MULTISET) is a 400 now rather than a job that fails after start.
   */
  private static void requireWritable(
      ObjectName name,
      String topic,
      MaterializedTableDefinition effective,
      List<FlinkSql.Column> columns) {
    try {
      new PipelinePlan(name, topic, "", effective, columns, "", "").subjects();
    } catch (IllegalArgumentException e) {
      throw new ApiException(
          ErrorCode.INVALID_DEFINITION, e.getMessage() + " (table " + name + ")");
    }
  }

  /**
   * Each expectation is checked with Flink on the rows the table writes: it must compile against
   * the table's columns and be a BOOLEAN (subqueries, aggregates and the like were refused by the
   * parser).
   */
  private static void checkExpectations(
      QueryPlanner queries, ObjectName name, MaterializedTableDefinition next) {
    if (next.schema() == null) {
      return;
    }
    for (TableSchema.Expectation e : next.schema().expectations()) {
      MaterializedTableDefinition check =
          new MaterializedTableDefinition(
              null,
              null,
              List.of(),
              next.distribution(),
              next.options(),
              next.freshness(),
              next.refreshMode(),
              next.startMode(),
              "SELECT (" + e.expression() + ") AS expectation FROM (\n" + next.query() + "\n)");
      List<FlinkSql.Column> result;
      try {
        result = queries.validate(name, check).columns();
      } catch (QueryPlanner.InvalidQueryException invalid) {
        throw new ApiException(
            ErrorCode.INVALID_DEFINITION,
            "Expectation '"
                + e.name()
                + "' EXPECT ("
                + e.expression()
                + ") does not apply to the rows of "
                + name
                + ": "
                + invalid.getMessage(),
            Map.of("expectation", e.name()));
      } catch (DependencyUnavailableException unavailable) {
        return; // the query was not checked either; the reconciler's submission checks both
      }
      String type = result.isEmpty() ? "nothing" : QueryPlanner.normalize(result.get(0).type());
      if (!type.startsWith("BOOLEAN")) {
        throw new ApiException(
            ErrorCode.INVALID_DEFINITION,
            "Expectation '"
                + e.name()
                + "' EXPECT ("
                + e.expression()
                + ") is "
                + type
                + ", not BOOLEAN: an expectation is a condition each row meets or violates",
            Map.of("expectation", e.name()));
      }
    }
  }

  /**
   * A continuous table commits its rows in a Kafka transaction per checkpoint interval (its
   * freshness), and the broker aborts transactions older than its {@code
   * transaction.max.timeout.ms}: a freshness that cannot fit is refused with both numbers.
   */
  private void requireFreshnessFits(
      ObjectName name, MaterializedTableDefinition effective, List<String> notes) {
    if (effective.refreshMode() != Clauses.RefreshMode.CONTINUOUS) {
      return;
    }
    try {
      // A broker setting: read once per script, not once per statement.
      Duration max = ReadOnce.read("transactionMaxTimeout", topics::transactionMaxTimeout);
      Duration interval = effective.freshness().toDuration();
      if (interval.compareTo(PipelinePlan.longestInterval(max)) > 0) {
        throw new ApiException(
            ErrorCode.INVALID_DEFINITION,
            "FRESHNESS = "
                + effective.freshness().sql()
                + " ("
                + interval.toMillis()
                + " ms) does not fit in the Kafka broker's transaction.max.timeout.ms ("
                + max.toMillis()
                + " ms): a continuous table keeps a transaction open for one freshness interval"
                + " plus a minute to commit. Lower the freshness to at most "
                + PipelinePlan.longestInterval(max).toMinutes()
                + " minutes, or raise transaction.max.timeout.ms on the brokers (table "
                + name
                + ")");
      }
    } catch (DependencyUnavailableException e) {
      notes.add("Freshness not checked against the broker now (" + e.getMessage() + ")");
    }
  }

  /** A new table must not take over a topic that exists already. */
  private void requireNewTopic(String topic, List<String> notes) {
    try {
      if (ReadOnce.read(topicExists(topic), () -> topics.exists(topic))) {
        throw new ApiException(
            ErrorCode.ALREADY_EXISTS,
            "Topic "
                + topic
                + " already exists and does not belong to a materialized table; it is never"
                + " adopted silently. Drop it or choose another table name",
            Map.of("topic", topic));
      }
    } catch (DependencyUnavailableException e) {
      log.info("Kafka unreachable; topic {} is checked by the reconciler", topic);
      notes.add("Topic not checked now: Kafka is unreachable; the reconciler checks it");
    }
  }

  private boolean hasRecords(String topic, List<String> notes) {
    try {
      return ReadOnce.read(holdsRecords(topic), () -> topics.hasRecords(topic));
    } catch (RemoteSystemException e) {
      notes.add("Topic contents not checked now (" + e.getMessage() + "); assumed not empty");
      return true;
    }
  }

  private static void compare(List<ValueChange> changes, String property, Object a, Object b) {
    if (!Objects.equals(a, b)) {
      changes.add(new ValueChange(property, String.valueOf(a), String.valueOf(b)));
    }
  }

  private static List<FlinkSql.Column> declared(MaterializedTableDefinition d) {
    if (!TableSchema.hasDeclaredTypes(d.schema())) {
      return List.of();
    }
    return d.schema().columns().stream()
        .filter(c -> c.kind() == Column.Kind.PHYSICAL)
        .map(c -> new FlinkSql.Column(c.name(), c.type(), !c.notNull()))
        .toList();
  }

  static List<ColumnChange> columnChanges(
      List<FlinkSql.Column> before, List<FlinkSql.Column> after) {
    List<ColumnChange> changes = new ArrayList<>();
    for (FlinkSql.Column b : before) {
      Optional<FlinkSql.Column> a = after.stream().filter(c -> c.name().equals(b.name())).findAny();
      if (a.isEmpty()) {
        changes.add(new ColumnChange(b.name(), "removed", describe(b), null));
      } else if (!QueryPlanner.normalize(a.get().type()).equals(QueryPlanner.normalize(b.type()))
          || a.get().nullable() != b.nullable()) {
        changes.add(new ColumnChange(b.name(), "changed", describe(b), describe(a.get())));
      }
    }
    for (FlinkSql.Column a : after) {
      if (before.stream().noneMatch(c -> c.name().equals(a.name()))) {
        changes.add(new ColumnChange(a.name(), "added", null, describe(a)));
      }
    }
    return changes;
  }

  private static String describe(FlinkSql.Column c) {
    return c.type() + (c.nullable() ? "" : " NOT NULL");
  }
}
