package dev.tributary.reconcile;

import dev.tributary.plan.QueryPlanner;
import dev.tributary.port.DependencyUnavailableException;
import dev.tributary.port.ExternalSystem;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.RemoteSystemException;
import dev.tributary.port.SchemaRegistry;
import dev.tributary.port.Topics;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Parser;
import dev.tributary.sql.Statement;
import dev.tributary.table.Phase;
import dev.tributary.table.TableSpec;
import dev.tributary.table.TableStatus;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Stateful in-memory fakes of every port the reconciler uses, and of its store, with switches to
 * take a system down or fail a job; plus a reconciler wired to them. For unit tests only.
 */
final class FakeWorld {

  final Store store = new Store();
  final ReconcileStore reconcileStore;
  final Kafka kafka = new Kafka();
  final Registry registry = new Registry();
  final Flink flink = new Flink();
  final List<String> crashAt = new ArrayList<>();
  final Reconciler reconciler;
  final QueryPlanner planner;

  /** Every source a Kafka table of orders. */
  static final QueryPlanner.Catalog CATALOG =
      name ->
          Optional.of(
              (Statement.CreateSourceTable)
                  Parser.parse(
                      "CREATE TABLE "
                          + name.sql()
                          + " (order_id STRING, price DOUBLE) WITH ('connector' = 'kafka', 'topic' = 'orders')"));

  /** Calls the reconciler (and a worker given {@link #countedJobs}) made, by port and method. */
  final Map<String, LongAdder> calls = new ConcurrentHashMap<>();

  final Topics countedTopics;
  final FlinkJobs countedJobs;

  /** The fake behind a proxy that counts each call at the port, as "port.method". */
  @SuppressWarnings("unchecked")
  private <T> T counted(Class<T> port, String system, T fake) {
    return (T)
        Proxy.newProxyInstance(
            port.getClassLoader(),
            new Class<?>[] {port},
            (proxy, method, args) -> {
              calls
                  .computeIfAbsent(system + "." + method.getName(), k -> new LongAdder())
                  .increment();
              try {
                return method.invoke(fake, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  long calls(String prefix) {
    return calls.entrySet().stream()
        .filter(e -> e.getKey().startsWith(prefix))
        .mapToLong(e -> e.getValue().sum())
        .sum();
  }

  FakeWorld() {
    this(null);
  }

  /** Fake ports around the given store (null: the in-memory one). */
  FakeWorld(ReconcileStore realStore) {
    this(realStore, Clock.systemUTC());
  }

  /** As {@link #FakeWorld(ReconcileStore)}, with the reconciler reading {@code clock}. */
  FakeWorld(ReconcileStore realStore, Clock clock) {
    reconcileStore = realStore == null ? store : realStore;
    FlinkSql countedSql = counted(FlinkSql.class, "flinkSql", flink);
    planner = new QueryPlanner(countedSql, CATALOG);
    Reconciler.Faults faults =
        step -> {
          if (crashAt.remove(step)) {
            throw new Crash(step);
          }
        };
    countedTopics = counted(Topics.class, "kafka", kafka);
    countedJobs = counted(FlinkJobs.class, "flinkJobs", flink);
    reconciler =
        new Reconciler(
            reconcileStore,
            countedTopics,
            counted(SchemaRegistry.class, "registry", registry),
            countedSql,
            countedJobs,
            planner,
            null, // FULL refreshes are tested on the real stack (FullRefreshIT)
            null,
            new Reconciler.Settings(
                "kafka:9092",
                "file:///savepoints",
                Duration.ofSeconds(30),
                Duration.ofSeconds(60),
                "http://registry:8081"),
            faults,
            clock);
  }

  /** A process death in the middle of a pass. */
  static final class Crash extends RuntimeException {
    Crash(String step) {
      super("crashed at " + step);
    }
  }

  UUID create(String sql) {
    Statement.CreateMaterializedTable create =
        (Statement.CreateMaterializedTable) Parser.parse(sql);
    UUID id = UUID.randomUUID();
    store.rows.put(
        id,
        new Row(new ObjectName("c", "d", create.name().name()), TableSpec.of(create.definition())));
    return id;
  }

  void change(UUID id, UnaryOperator<TableSpec> change, boolean newDefinition) {
    Row row = store.rows.get(id);
    row.spec = change.apply(row.spec);
    row.generation++;
    if (newDefinition) {
      row.version++;
      row.versions.put(row.version, row.spec);
    }
  }

  void drop(UUID id) {
    Row row = store.rows.get(id);
    row.deletion = true;
    row.generation++;
  }

  /** Runs passes (a crash ends a pass, as a dead process would) until the table settles. */
  Phase converge(UUID id) {
    for (int i = 0; i < 40; i++) {
      if (!pass(id)) {
        return null;
      }
    }
    return store.load(id).map(TableSnapshot::phase).orElse(null);
  }

  /** One pass over the table; false when it is gone. */
  boolean pass(UUID id) {
    Optional<TableSnapshot> snapshot = store.load(id);
    if (snapshot.isEmpty()) {
      return false;
    }
    try {
      // As ReconcileWorker does: an unobservable Flink makes the table wait, and say so.
      List<FlinkJobs.JobSummary> overview;
      try {
        overview = flink.overview();
      } catch (RemoteSystemException e) {
        reconciler.unavailable(snapshot.get(), e);
        return true;
      }
      reconciler.reconcile(snapshot.get(), overview);
    } catch (Crash crash) {
      // The next pass starts from what was stored.
    }
    return true;
  }

  Phase phase(UUID id) {
    return store.rows.get(id).phase;
  }

  TableStatus status(UUID id) {
    return store.rows.get(id).status;
  }

  /** A table row. */
  static final class Row {
    final ObjectName name;
    TableSpec spec;
    long generation = 1;
    long version = 1;
    boolean deletion;
    Phase phase = Phase.PENDING;
    TableStatus status = TableStatus.initial();
    long observedGeneration;
    final Map<Long, TableSpec> versions = new HashMap<>();
    final Map<Long, String> failures = new HashMap<>();

    Row(ObjectName name, TableSpec spec) {
      this.name = name;
      this.spec = spec;
      versions.put(1L, spec);
    }
  }

  /** The store, in memory. */
  static final class Store implements ReconcileStore {
    final Map<UUID, Row> rows = new LinkedHashMap<>();
    final List<String> events = new ArrayList<>();

    /** The token each row is claimed under; a row claimed again elsewhere has a new one. */
    final Map<UUID, UUID> tokens = new HashMap<>();

    /** The rows claimed and not yet given back: a claim does not take them again. */
    final Set<UUID> leased = new HashSet<>();

    /**
     * Every row not claimed already is due: up to {@code limit} of them, taking up where the last
     * claim stopped (round robin), so that batches of a worker take turns over the rows.
     */
    public synchronized List<Claim> claim(String owner, int limit, Duration lease) {
      List<UUID> ids = new ArrayList<>(rows.keySet());
      ids.removeAll(leased);
      List<Claim> claims = new ArrayList<>();
      for (int i = 0; i < Math.min(limit, ids.size()); i++) {
        UUID id = ids.get((cursor + i) % ids.size());
        UUID token = UUID.randomUUID();
        tokens.put(id, token);
        leased.add(id);
        claims.add(new Claim(id, token, -1, written.get(id)));
      }
      cursor = ids.isEmpty() ? 0 : (cursor + claims.size()) % ids.size();
      return claims;
    }

    private int cursor;

    @Override
    public synchronized List<String> dueTopics() {
      return rows.values().stream().filter(r -> !r.deletion).map(r -> r.name.name()).toList();
    }

    /** When each row's status was last written. */
    final Map<UUID, Instant> written = new HashMap<>();

    @Override
    public List<FlowState> flows(UUID table) {
      return List.of(); // the fake holds materialized tables only
    }

    /** Another replica takes the row over, as after an expired lease. */
    synchronized void stealClaim(UUID id) {
      tokens.put(id, UUID.randomUUID());
    }

    private boolean holds(UUID id, UUID token) {
      return token == null || token.equals(tokens.get(id));
    }

    public synchronized boolean confirm(UUID id, UUID token, Duration lease) {
      return holds(id, token);
    }

    public void extend(List<Claim> claims, Duration lease) {}

    public synchronized void release(
        UUID id, UUID token, long seenGeneration, Duration after, int attempt) {
      if (holds(id, token)) {
        leased.remove(id);
      }
    }

    public synchronized int abandon(String owner) {
      int held = leased.size();
      leased.clear();
      return held;
    }

    public synchronized Optional<TableSnapshot> load(UUID id) {
      Row r = rows.get(id);
      return r == null
          ? Optional.empty()
          : Optional.of(
              new TableSnapshot(
                  id,
                  r.name,
                  r.name.name(),
                  r.generation,
                  r.version,
                  r.spec,
                  r.deletion,
                  r.phase,
                  r.status,
                  r.observedGeneration));
    }

    /** Phase changes the phase table of DESIGN.md does not allow (a test asserts none). */
    final List<String> outOfTable = new CopyOnWriteArrayList<>();

    public int attempt(UUID id) {
      return 0;
    }

    public synchronized void saveStatus(
        UUID id, UUID token, Phase phase, long observedGeneration, TableStatus status) {
      if (!holds(id, token)) {
        throw new ClaimLostException(id);
      }
      Row r = rows.get(id);
      if (!Phases.allowed(r.phase, phase)) {
        outOfTable.add(r.phase + " -> " + phase);
      }
      r.phase = phase;
      r.status = status;
      r.observedGeneration = observedGeneration;
      written.put(id, Instant.now());
      statuses.add(status);
      writes.add(phase + " at generation " + observedGeneration);
    }

    /** Every status written, in order. */
    final List<TableStatus> statuses = new CopyOnWriteArrayList<>();

    /** Every status write's phase and observed generation, in order. */
    final List<String> writes = new CopyOnWriteArrayList<>();

    public synchronized void rollBack(UUID id, UUID token, long failed, long to, String cause) {
      if (!holds(id, token)) {
        throw new ClaimLostException(id);
      }
      Row r = rows.get(id);
      r.failures.put(failed, cause);
      r.spec = r.versions.get(to).withStopped(r.spec.stopped());
      r.generation++;
      r.version = r.generation;
      r.versions.put(r.version, r.spec);
    }

    public synchronized void event(UUID id, String type, String reason, String message) {
      events.add(reason);
    }

    final List<List<UUID>> markedDue = new ArrayList<>();

    public synchronized void markDue(Collection<UUID> ids) {
      markedDue.add(List.copyOf(ids));
    }

    public int pruneEvents(Duration maxAge, int keepPerTable) {
      return 0;
    }

    public synchronized void delete(UUID id, UUID token) {
      if (!holds(id, token)) {
        throw new ClaimLostException(id);
      }
      rows.remove(id);
    }
  }

  /** Kafka topics in memory. */
  static final class Kafka implements Topics {
    final Map<String, TopicState> topics = new HashMap<>();
    boolean down;

    private void check() {
      if (down) {
        throw new DependencyUnavailableException(ExternalSystem.KAFKA, "connection refused", null);
      }
    }

    /** A slow broker: how long a topic's creation takes to answer (outside the lock). */
    volatile Duration ensureDelay = Duration.ZERO;

    /** How many creations of a topic still fail (the broker unreachable for them only). */
    final AtomicInteger ensureFailures = new AtomicInteger();

    public TopicState ensure(TopicSpec spec) {
      if (!ensureDelay.isZero()) {
        try {
          Thread.sleep(ensureDelay.toMillis());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      if (ensureFailures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new DependencyUnavailableException(ExternalSystem.KAFKA, "request timed out", null);
      }
      return ensureNow(spec);
    }

    private synchronized TopicState ensureNow(TopicSpec spec) {
      check();
      boolean created = !topics.containsKey(spec.name());
      topics.putIfAbsent(
          spec.name(), new TopicState(spec.name(), spec.partitions(), 1, spec.configs(), false));
      TopicState t = topics.get(spec.name());
      return new TopicState(t.name(), t.partitions(), 1, t.configs(), created);
    }

    /** Topics that exist but that the broker answering a describe does not know of yet. */
    final Set<String> unseen = new HashSet<>();

    public synchronized Optional<TopicState> describe(String name) {
      check();
      return unseen.contains(name) ? Optional.empty() : Optional.ofNullable(topics.get(name));
    }

    final Map<String, Map<String, Map<Integer, Long>>> groups = new HashMap<>();
    final Set<String> filled = new HashSet<>();

    public synchronized boolean hasRecords(String name) {
      check();
      return filled.contains(name);
    }

    public synchronized Map<String, Map<Integer, Long>> committedOffsets(String group) {
      check();
      return groups.getOrDefault(group, Map.of());
    }

    Duration transactionMaxTimeout = Duration.ofMinutes(15);

    public synchronized Duration transactionMaxTimeout() {
      check();
      return transactionMaxTimeout;
    }

    public synchronized void deleteGroup(String group) {
      check();
      groups.remove(group);
    }

    public synchronized void alterConfigs(String name, Map<String, String> configs) {
      check();
      TopicState t = topics.get(name);
      Map<String, String> merged = new HashMap<>(t.configs());
      configs.forEach(
          (k, v) -> {
            if (v == null) {
              merged.remove(k);
            } else {
              merged.put(k, v);
            }
          });
      topics.put(name, new TopicState(name, t.partitions(), 1, merged, false));
    }

    public synchronized void delete(String name) {
      check();
      topics.remove(name);
    }

    public synchronized List<TopicRecord> latest(String name, int limit) {
      return List.of();
    }
  }

  /** A schema registry in memory. */
  static final class Registry implements SchemaRegistry {
    final Map<String, List<Schema>> subjects = new HashMap<>();
    final AtomicInteger ids = new AtomicInteger();
    int registrations;

    final Map<Integer, Schema> byId = new HashMap<>();

    public synchronized int register(String subject, Schema schema) {
      registrations++;
      List<Schema> versions = subjects.computeIfAbsent(subject, s -> new ArrayList<>());
      if (versions.contains(schema)) {
        // As a real registry: a schema the subject has already keeps its id, and adds no version.
        return byId.entrySet().stream()
            .filter(e -> e.getValue().equals(schema))
            .mapToInt(Map.Entry::getKey)
            .min()
            .orElseThrow();
      }
      versions.add(schema);
      int id = ids.incrementAndGet();
      byId.put(id, schema);
      return id;
    }

    public synchronized Optional<Schema> byId(int id) {
      return Optional.ofNullable(byId.get(id));
    }

    public synchronized Optional<RegisteredSchema> latest(String subject) {
      List<Schema> versions = subjects.get(subject);
      return versions == null
          ? Optional.empty()
          : Optional.of(
              new RegisteredSchema(
                  subject, versions.size(), versions.size(), versions.get(versions.size() - 1)));
    }

    /** Failure switch: the subjects' compatibility rule refuses every new schema. */
    boolean refuseNewSchemas;

    public synchronized boolean isCompatible(String subject, Schema schema) {
      return !refuseNewSchemas || !subjects.containsKey(subject);
    }

    public synchronized void setCompatibility(String subject, Compatibility level) {}

    public synchronized Optional<Compatibility> compatibility(String subject) {
      return Optional.empty();
    }

    public synchronized List<Integer> deleteSubject(String subject, boolean permanent) {
      List<Schema> removed = subjects.remove(subject);
      return removed == null ? List.of() : List.of(1);
    }
  }

  /** The SQL Gateway and the JobManager in memory: an INSERT starts a RUNNING job. */
  static final class Flink implements FlinkSql, FlinkJobs {
    final Map<String, Map<String, String>> sessions = new HashMap<>();
    final Map<String, Job> jobs = new LinkedHashMap<>();
    List<Column> schema =
        List.of(new Column("order_id", "STRING", true), new Column("price", "DOUBLE", true));
    boolean down;
    volatile int submissions;

    /** A job and where it restored from. */
    static final class Job {
      final String id;
      final String name;
      final String restoredFrom;
      JobState state = JobState.RUNNING;
      String savepoint;

      /** A stop's savepoint is being taken (with {@link #stopsSlowly}). */
      boolean savepointPending;

      String pool;
      final Instant started = Instant.now();

      Job(String id, String name, String restoredFrom) {
        this.id = id;
        this.name = name;
        this.restoredFrom = restoredFrom;
      }
    }

    private void check() {
      if (down) {
        throw new DependencyUnavailableException(ExternalSystem.FLINK, "connection refused", null);
      }
    }

    synchronized List<Job> live() {
      return jobs.values().stream().filter(j -> !j.state.terminal()).toList();
    }

    synchronized void fail(String jobId) {
      jobs.get(jobId).state = JobState.FAILED;
    }

    public synchronized Session openSession(String name, Map<String, String> properties) {
      return openSession(FlinkJobs.DEFAULT_POOL, name, properties);
    }

    /** Compute pools whose gateway refuses every job (a connector it lacks, say). */
    final Set<String> refusingPools = new HashSet<>();

    @Override
    public synchronized Session openSession(
        String pool, String name, Map<String, String> properties) {
      check();
      String handle = UUID.randomUUID().toString();
      Map<String, String> settings = new HashMap<>(properties);
      settings.put("$pool", pool);
      sessions.put(handle, settings);
      return new Session(handle);
    }

    final List<String> executed = new ArrayList<>();

    /** A slow gateway: how long an INSERT takes to answer (outside the lock). */
    volatile Duration insertDelay = Duration.ZERO;

    /** Whether the delayed INSERT ignores interrupts too (a call stuck where none reaches it). */
    volatile boolean insertIgnoresInterrupts;

    /** INSERTs sent and not answered yet. */
    final AtomicInteger insertsUnderway = new AtomicInteger();

    public StatementResult execute(Session session, String statement) {
      if (!statement.startsWith("INSERT")) {
        return executeNow(session, statement);
      }
      insertsUnderway.incrementAndGet();
      try {
        return delayedInsert(session, statement);
      } finally {
        insertsUnderway.decrementAndGet();
      }
    }

    private StatementResult delayedInsert(Session session, String statement) {
      if (!insertDelay.isZero()) {
        long end = System.nanoTime() + insertDelay.toNanos();
        for (long left = insertDelay.toMillis(); left > 0; ) {
          try {
            Thread.sleep(left);
          } catch (InterruptedException e) {
            if (!insertIgnoresInterrupts) {
              Thread.currentThread().interrupt();
              break;
            }
          }
          left = (end - System.nanoTime()) / 1_000_000;
        }
      }
      return executeNow(session, statement);
    }

    /** Told of every statement as it is run, before it runs, with its session's settings. */
    volatile BiConsumer<Map<String, String>, String> onStatement = (settings, statement) -> {};

    private synchronized StatementResult executeNow(Session session, String statement) {
      check();
      Map<String, String> settings = sessions.get(session.handle());
      onStatement.accept(settings, statement);
      executed.add(statement);
      Matcher set = Pattern.compile("SET '([^']+)' = '([^']*)'").matcher(statement);
      if (set.matches()) {
        settings.put(set.group(1), set.group(2));
      }
      if (statement.startsWith("INSERT")) {
        if (refuseSubmissions != null) {
          throw new StatementFailedException(refuseSubmissions, 0, 0, List.of());
        }
        if (refusingPools.contains(settings.get("$pool"))) {
          throw new StatementFailedException(
              "ValidationException: Could not find any factory for identifier 'kafka'",
              0,
              0,
              List.of());
        }
        String fixed = settings.get("$internal.pipeline.job-id");
        if (fixed != null && jobs.containsKey(fixed)) {
          // As Flink's Dispatcher: a job id is accepted once.
          throw new StatementFailedException(
              "DuplicateJobSubmissionException: Job has already been submitted", 0, 0, List.of());
        }
        submissions++;
        String id = fixed != null ? fixed : UUID.randomUUID().toString().replace("-", "");
        Job job =
            new Job(
                id, settings.get("pipeline.name"), settings.get("execution.state-recovery.path"));
        job.pool = settings.get("$pool");
        job.state = startsAs;
        jobs.put(id, job);
        return new StatementResult(List.of("job id"), List.of(List.of(id)), Optional.of(id));
      }
      return new StatementResult(List.of(), List.of(), Optional.empty());
    }

    public synchronized List<Column> inferSchema(Session session, String query) {
      check();
      return schema;
    }

    public synchronized ChangelogMode changelogMode(Session session, String query) {
      check();
      return new ChangelogMode(Set.of(RowKind.INSERT));
    }

    public synchronized void closeSession(Session session) {
      sessions.remove(session.handle());
    }

    /** Every job, whatever its pool: the fake's pools share one list. */
    public List<JobSummary> overview(String pool) {
      return overview();
    }

    public synchronized List<JobSummary> overview() {
      check();
      return jobs.values().stream()
          .map(j -> new JobSummary(j.id, j.name, j.state, j.started))
          .toList();
    }

    public synchronized Optional<JobDetail> job(String jobId) {
      check();
      Job j = jobs.get(jobId);
      return j == null
          ? Optional.empty()
          : Optional.of(
              new JobDetail(
                  j.id,
                  j.name,
                  j.state,
                  j.started,
                  j.state == JobState.FAILED ? Optional.of("boom") : Optional.empty()));
    }

    /** Every trigger id sent, in order; a repeated id is one operation, as in Flink. */
    final List<String> triggers = new ArrayList<>();

    /** Savepoints taken: one per distinct trigger id. */
    int savepointsTaken;

    public synchronized void triggerStopWithSavepoint(
        String jobId, String targetDirectory, String triggerId) {
      check();
      boolean repeated = triggers.contains(triggerId);
      triggers.add(triggerId);
      if (repeated) {
        return;
      }
      savepointsTaken++;
      Job j = jobs.get(jobId);
      j.savepoint = targetDirectory + "/savepoint-" + jobId.substring(0, 6);
      if (stopsSlowly) {
        j.savepointPending = true; // the job runs on until the test ends the stop
        return;
      }
      j.state = JobState.FINISHED;
    }

    /** Whether a stop with a savepoint stays in progress, its job RUNNING, until a test ends it. */
    volatile boolean stopsSlowly;

    /** Failure switch: the JobManager has forgotten every savepoint trigger (answers 404). */
    boolean forgetTriggers;

    /** Failure switch: every submission is refused with this message. */
    String refuseSubmissions;

    public synchronized SavepointStatus savepointStatus(String jobId, String triggerId) {
      check();
      if (forgetTriggers || !triggers.contains(triggerId)) {
        throw new RemoteSystemException(
            ExternalSystem.FLINK, "404: unknown trigger " + triggerId, false);
      }
      if (jobs.get(jobId).savepointPending) {
        return new SavepointStatus(
            SavepointStatus.Phase.IN_PROGRESS, Optional.empty(), Optional.empty());
      }
      return new SavepointStatus(
          SavepointStatus.Phase.COMPLETED,
          Optional.ofNullable(jobs.get(jobId).savepoint),
          Optional.empty());
    }

    public synchronized void cancel(String jobId) {
      check();
      Job j = jobs.get(jobId);
      if (j != null && !j.state.terminal()) {
        j.state = cancelsSlowly ? JobState.CANCELLING : JobState.CANCELED;
      }
    }

    /** The state a submitted job is in until a test changes it (RUNNING: it runs at once). */
    volatile JobState startsAs = JobState.RUNNING;

    /** Whether a cancelled job stays CANCELLING until a test ends it. */
    volatile boolean cancelsSlowly;

    /** What each savepoint says of its sources' positions, by savepoint path. */
    final Map<String, Map<String, Map<Integer, Long>>> savepointOffsets = new HashMap<>();

    public synchronized Optional<Map<String, Map<Integer, Long>>> sourceOffsets(
        String savepointPath, Set<String> topics) {
      return Optional.ofNullable(savepointOffsets.get(savepointPath));
    }

    /** Whether the service can read the savepoint storage (false: like s3:// from here). */
    boolean savepointsReadable = true;

    @Override
    public boolean readsSavepoints(String directory) {
      return savepointsReadable;
    }

    /** Savepoint directories deleted or pruned, with how many were kept. */
    final List<String> prunes = new ArrayList<>();

    public synchronized Optional<Integer> pruneSavepoints(
        String directory, int keep, Set<String> protect) {
      prunes.add(directory + " keep " + keep);
      return Optional.of(0);
    }

    /** When set, every job completes a checkpoint every 10 s of this clock. */
    volatile Clock checkpointing;

    /** Completed checkpoints per job, newest last; a job without any has chk-7. */
    final Map<String, List<String>> checkpoints = new HashMap<>();

    @Override
    public synchronized Map<String, Long> operatorCounters(String jobId, String group) {
      check();
      return Map.of(); // the fake's jobs run no operators
    }

    @Override
    public synchronized Optional<Long> recordsReceived(String jobId, String vertexName) {
      check();
      return Optional.empty();
    }

    @Override
    public synchronized Optional<Completed> latestCompleted(String jobId) {
      check();
      Job j = jobs.get(jobId);
      if (j == null) {
        return Optional.empty();
      }
      if (j.savepoint != null) {
        return Optional.of(new Completed(j.savepoint, Instant.now(), true));
      }
      if (checkpointing != null) {
        // One checkpoint every 10 s of the clock since the job started, as a running job has.
        Instant now = checkpointing.instant();
        long n = Duration.between(j.started, now).toSeconds() / 10;
        return Optional.of(new Completed("file:///checkpoints/" + jobId + "/chk-" + n, now, false));
      }
      List<String> completed =
          checkpoints.getOrDefault(jobId, List.of("file:///checkpoints/" + jobId + "/chk-7"));
      return Optional.of(new Completed(completed.get(completed.size() - 1), Instant.now(), false));
    }

    /**
     * What the checkpoint storage holds per job directory, newest last, when the service can read
     * it; a directory not here is out of reach.
     */
    final Map<String, List<String>> storedCheckpoints = new HashMap<>();

    @Override
    public synchronized Optional<String> newestCheckpoint(String jobDirectory) {
      List<String> stored = storedCheckpoints.get(jobDirectory);
      return stored == null || stored.isEmpty()
          ? Optional.empty()
          : Optional.of(stored.get(stored.size() - 1));
    }

    /** Checkpoint directories deleted. */
    final List<String> deletedCheckpoints = new ArrayList<>();

    public synchronized Optional<Integer> deleteCheckpoints(String directory) {
      deletedCheckpoints.add(directory);
      return Optional.of(1);
    }

    /** The JobManager restarted without HA: it knows no job any more. */
    synchronized void forgetJobs() {
      jobs.clear();
    }
  }

  static MaterializedTableDefinition definition(String sql) {
    return ((Statement.CreateMaterializedTable) Parser.parse(sql)).definition();
  }
}
