package dev.tributary.table;

import dev.tributary.port.FlinkSql;
import dev.tributary.system.Json;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the reconciler knows about a table's world, stored as {@code materialized_table.status}.
 * Handles it is about to create are written here before the call that creates them (intent before
 * side effect), so that a restarted reconciler adopts instead of creating twice.
 */
public record TableStatus(
    long validatedVersion,
    long invalidVersion,
    long failedGeneration,
    List<FlinkSql.Column> schema,
    String changelogMode,
    String topic,
    Integer partitions,
    String keySubject,
    Integer keySchemaId,
    String valueSubject,
    Integer valueSchemaId,
    long subjectsVersion,
    String pipelineName,
    String jobId,
    Instant jobStartTime,
    String savepointTriggerId,
    String savepointPath,
    String savepointPipeline,
    Instant savepointAt,
    RestorePoint checkpoint,
    String restoredFrom,
    long jobVersion,
    long checkpointIntervalMs,
    String errorHandling,
    String computePool,
    long submission,
    Evolution evolution,
    boolean stopRequested,
    int consecutiveFailures,
    boolean refreshScheduled,
    Quality quality,
    Quality skipped,
    Once once,
    long fullRefreshed,
    String detail,
    List<Condition> conditions) {

  public TableStatus {
    schema = schema == null ? List.of() : List.copyOf(schema);
    conditions = conditions == null ? List.of() : List.copyOf(conditions);
  }

  public static TableStatus initial() {
    return new TableStatus(
        0, 0, 0, List.of(), null, null, null, null, null, null, null, 0, null, null, null, null,
        null, null, null, null, null, 0, 0, null, null, 0, null, false, 0, false, null, null, null,
        0, null, List.of());
  }

  /** Rows that passed and failed one expectation. */
  public record Count(String name, long passed, long failed) {}

  /** The count, in {@link #skipped}, of source records sent to the dead-letter table. */
  public static final String DEAD_LETTERED = "dead-lettered";

  /**
   * What the expectations counted: {@code job} as the counters of job {@code jobId} were last read
   * (at {@code at}), {@code before} the sums of the table's earlier jobs. A restart from a
   * checkpoint evaluates the rows after it again, which count again.
   */
  public record Quality(String jobId, List<Count> job, List<Count> before, Instant at) {
    public Quality {
      job = job == null ? List.of() : List.copyOf(job);
      before = before == null ? List.of() : List.copyOf(before);
    }

    /** Per expectation: the earlier jobs' counts plus the current job's. */
    public List<Count> totals() {
      Map<String, Count> sums = new LinkedHashMap<>();
      for (Count c : before) {
        sums.merge(c.name(), c, Quality::add);
      }
      for (Count c : job) {
        sums.merge(c.name(), c, Quality::add);
      }
      return List.copyOf(sums.values());
    }

    /**
     * The counts after a read of job {@code jobId}'s counters, {@code read}; empty when nothing
     * changed. A job's counters only grow, so a read that misses some (not fetched yet) keeps what
     * was seen; a new job starts on top of the earlier jobs' totals.
     */
    public static Optional<Quality> after(
        Quality before, String jobId, List<Count> read, Instant at) {
      boolean sameJob = before != null && jobId.equals(before.jobId());
      List<Count> current = new ArrayList<>();
      for (Count c : read) {
        Count seen =
            sameJob
                ? before.job().stream().filter(s -> s.name().equals(c.name())).findFirst().orElse(c)
                : c;
        current.add(
            new Count(
                c.name(),
                Math.max(c.passed(), seen.passed()),
                Math.max(c.failed(), seen.failed())));
      }
      if (sameJob && before.job().equals(current)) {
        return Optional.empty();
      }
      List<Count> earlier =
          before == null ? List.of() : sameJob ? before.before() : before.totals();
      return Optional.of(new Quality(jobId, current, earlier, at));
    }

    private static Count add(Count a, Count b) {
      return new Count(a.name(), a.passed() + b.passed(), a.failed() + b.failed());
    }
  }

  /**
   * The one run of an INSERT ONCE flow: the source offsets it reads up to (captured before it first
   * starts, so that a restart reads the same rows), its job, and how it ended ({@code SUCCEEDED},
   * {@code FAILED}; null while it runs) with the rows it wrote.
   */
  public record Once(
      Map<String, Map<Integer, Long>> bounds,
      String jobId,
      String state,
      Long rows,
      Instant finishedAt) {
    public boolean done() {
      return "SUCCEEDED".equals(state);
    }
  }

  /**
   * An evolution under way: the job of definition version {@code fromVersion} ({@code
   * fromPipeline}) stopped at {@code savepointPath}; the new job must run for the readiness window
   * from {@code runningSince}, or the table rolls back to the old definition and that savepoint. A
   * move to another compute pool is one too ({@code fromPool} the pool it leaves, null for a new
   * definition): the same job must start on the new pool, or it goes back to the old one.
   */
  public record Evolution(
      long fromVersion,
      String fromPipeline,
      String savepointPath,
      Instant startedAt,
      Instant runningSince,
      String fromPool) {

    /** An evolution to a new definition. */
    public Evolution(
        long fromVersion,
        String fromPipeline,
        String savepointPath,
        Instant startedAt,
        Instant runningSince) {
      this(fromVersion, fromPipeline, savepointPath, startedAt, runningSince, null);
    }

    public Evolution withSavepoint(String path) {
      return new Evolution(fromVersion, fromPipeline, path, startedAt, null, fromPool);
    }

    public Evolution runningSince(Instant since) {
      return new Evolution(fromVersion, fromPipeline, savepointPath, startedAt, since, fromPool);
    }

    /** Whether this is a move of the same job to another compute pool. */
    public boolean move() {
      return fromPool != null;
    }
  }

  /**
   * A completed checkpoint (or savepoint) of the job of {@code pipeline}, as the JobManager
   * reported it while the job ran: a restart restores the newest one even when the JobManager has
   * forgotten the job.
   */
  public record RestorePoint(String path, String pipeline, Instant completedAt) {}

  /** The status as stored; an empty document is the initial status. */
  public static TableStatus parse(String json) {
    if (json == null || json.isBlank() || json.equals("{}")) {
      return initial();
    }
    return Json.read(json, TableStatus.class);
  }

  /**
   * One aspect of readiness, as in Kubernetes: a type, True/False/Unknown, and why, as of the
   * table's generation {@code observedGeneration} (null in conditions stored before it was kept).
   */
  public record Condition(
      String type,
      String status,
      Reason reason,
      String message,
      Instant lastTransitionTime,
      Long observedGeneration) {

    Condition at(long generation) {
      return new Condition(type, status, reason, message, lastTransitionTime, generation);
    }

    private boolean sameAs(Condition other) {
      return other != null
          && status.equals(other.status)
          && reason == other.reason
          && Objects.equals(message, other.message);
    }
  }

  /**
   * These conditions as of {@code generation}: those set or changed since {@code before} (every one
   * with {@code all}, when the world is known to match the generation) carry it; the others keep
   * the generation they were last evaluated at.
   */
  public TableStatus observedAt(TableStatus before, long generation, boolean all) {
    List<Condition> next = new ArrayList<>();
    boolean changed = false;
    for (Condition c : conditions) {
      Condition old = before == null ? null : before.condition(c.type());
      boolean stamp =
          (all || !c.sameAs(old) || c.observedGeneration() == null)
              && !Long.valueOf(generation).equals(c.observedGeneration());
      next.add(stamp ? c.at(generation) : c);
      changed |= stamp;
    }
    return changed ? new Builder(this).conditions(next).build() : this;
  }

  /** Condition types. */
  public static final String READY = "Ready";

  public static final String TOPIC_READY = "TopicReady";
  public static final String SCHEMA_REGISTERED = "SchemaRegistered";
  public static final String JOB_RUNNING = "JobRunning";

  /**
   * The freshness promise: the content is at most twice the FRESHNESS behind (one interval of slack
   * for a refresh or a checkpoint to complete).
   */
  public static final String FRESH = "Fresh";

  /** The closed set of reasons a condition can give. */
  public enum Reason {
    Provisioning,
    QueryValidated,
    InvalidQuery,
    TopicCreated,
    TopicConflict,
    SchemaRegistered,
    SchemaIncompatible,
    JobSubmitted,
    JobRunning,
    JobRestarting,
    JobFailed,
    RetriesExhausted,
    Suspending,
    Suspended,
    Evolving,
    EvolutionRolledBack,
    Restarting,
    Deleting,
    DependencyUnavailable,
    OperationFailed,
    DuplicateJob,
    WaitingForUpstream,
    Completed,
    ExpectationViolated,
    RecordUnreadable,
    Scheduled,
    Refreshing,
    Refreshed,
    FreshnessMissed
  }

  /** The condition of a type, or null. */
  public Condition condition(String type) {
    return conditions.stream().filter(c -> c.type().equals(type)).findFirst().orElse(null);
  }

  /**
   * Sets a condition. The transition time moves only when the status value changes, so writing the
   * same condition again changes nothing.
   */
  public TableStatus with(String type, boolean ok, Reason reason, String message) {
    String value = ok ? "True" : "False";
    List<Condition> next = new ArrayList<>();
    boolean found = false;
    for (Condition c : conditions) {
      if (c.type().equals(type)) {
        found = true;
        Instant since = c.status().equals(value) ? c.lastTransitionTime() : Instant.now();
        next.add(new Condition(type, value, reason, message, since, c.observedGeneration()));
      } else {
        next.add(c);
      }
    }
    if (!found) {
      next.add(new Condition(type, value, reason, message, Instant.now(), null));
    }
    return new Builder(this).conditions(next).build();
  }

  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Copy-with for a record of many fields. */
  public static final class Builder {
    private long validatedVersion;
    private long invalidVersion;
    private long failedGeneration;
    private List<FlinkSql.Column> schema;
    private String changelogMode;
    private String topic;
    private Integer partitions;
    private String keySubject;
    private Integer keySchemaId;
    private String valueSubject;
    private Integer valueSchemaId;
    private long subjectsVersion;
    private String pipelineName;
    private String jobId;
    private Instant jobStartTime;
    private String savepointTriggerId;
    private String savepointPath;
    private String savepointPipeline;
    private Instant savepointAt;
    private RestorePoint checkpoint;
    private String restoredFrom;
    private long jobVersion;
    private long checkpointIntervalMs;
    private String errorHandling;
    private String computePool;
    private long submission;
    private Evolution evolution;
    private boolean stopRequested;
    private int consecutiveFailures;
    private boolean refreshScheduled;
    private Quality quality;
    private Quality skipped;
    private Once once;
    private long fullRefreshed;
    private String detail;
    private List<Condition> conditions;

    Builder(TableStatus s) {
      validatedVersion = s.validatedVersion;
      invalidVersion = s.invalidVersion;
      failedGeneration = s.failedGeneration;
      schema = s.schema;
      changelogMode = s.changelogMode;
      topic = s.topic;
      partitions = s.partitions;
      keySubject = s.keySubject;
      keySchemaId = s.keySchemaId;
      valueSubject = s.valueSubject;
      valueSchemaId = s.valueSchemaId;
      subjectsVersion = s.subjectsVersion;
      pipelineName = s.pipelineName;
      jobId = s.jobId;
      jobStartTime = s.jobStartTime;
      savepointTriggerId = s.savepointTriggerId;
      savepointPath = s.savepointPath;
      savepointPipeline = s.savepointPipeline;
      savepointAt = s.savepointAt;
      checkpoint = s.checkpoint;
      restoredFrom = s.restoredFrom;
      jobVersion = s.jobVersion;
      checkpointIntervalMs = s.checkpointIntervalMs;
      errorHandling = s.errorHandling;
      computePool = s.computePool;
      submission = s.submission;
      evolution = s.evolution;
      stopRequested = s.stopRequested;
      consecutiveFailures = s.consecutiveFailures;
      refreshScheduled = s.refreshScheduled;
      quality = s.quality;
      skipped = s.skipped;
      once = s.once;
      fullRefreshed = s.fullRefreshed;
      detail = s.detail;
      conditions = s.conditions;
    }

    public Builder invalid(long version) {
      invalidVersion = version;
      return this;
    }

    public Builder failedAt(long generation) {
      failedGeneration = generation;
      return this;
    }

    public Builder validated(long version, List<FlinkSql.Column> columns, String mode) {
      validatedVersion = version;
      schema = columns;
      changelogMode = mode;
      return this;
    }

    public Builder topic(String name, Integer count) {
      topic = name;
      partitions = count;
      return this;
    }

    public Builder subjects(String key, Integer keyId, String value, Integer valueId) {
      keySubject = key;
      keySchemaId = keyId;
      valueSubject = value;
      valueSchemaId = valueId;
      return this;
    }

    /** The definition version whose schemas the subjects hold. */
    public Builder subjectsOf(long version) {
      subjectsVersion = version;
      return this;
    }

    public Builder pipelineName(String name) {
      pipelineName = name;
      return this;
    }

    public Builder job(String id, Instant started) {
      jobId = id;
      jobStartTime = started;
      return this;
    }

    public Builder savepoint(String triggerId, String path) {
      savepointTriggerId = triggerId;
      savepointPath = path;
      if (path != null) {
        savepointAt = Instant.now();
      }
      return this;
    }

    /** The newest completed checkpoint seen while the job ran. */
    public Builder checkpoint(RestorePoint point) {
      checkpoint = point;
      return this;
    }

    /** What the running job restored: a savepoint, a checkpoint, or no state (and why). */
    public Builder restoredFrom(String text) {
      restoredFrom = text;
      return this;
    }

    /** The pipeline whose job wrote the savepoint: state restores only into that job's shape. */
    public Builder savepointOf(String pipeline) {
      savepointPipeline = pipeline;
      return this;
    }

    /** What the submitted job runs: the definition version and checkpoint interval. */
    public Builder jobRuns(long version, long intervalMs) {
      jobVersion = version;
      checkpointIntervalMs = intervalMs;
      return this;
    }

    /**
     * As {@link #jobRuns(long, long)}, with the {@code error-handling.mode} the job reads its
     * sources with ("" when the table sets none; null in statuses written before it was kept).
     */
    public Builder jobRuns(long version, long intervalMs, String errorHandlingMode) {
      errorHandling = errorHandlingMode == null ? "" : errorHandlingMode;
      return jobRuns(version, intervalMs);
    }

    /**
     * The compute pool the table's job is submitted to, recorded before the submission (null in
     * statuses written before pools: the pool {@code default}).
     */
    public Builder computePool(String pool) {
      computePool = pool;
      return this;
    }

    /** The number of the next submission; with the pipeline it gives the job's fixed id. */
    public Builder submission(long number) {
      submission = number;
      return this;
    }

    public Builder evolution(Evolution value) {
      evolution = value;
      return this;
    }

    public Builder stopRequested(boolean requested) {
      stopRequested = requested;
      return this;
    }

    public Builder failures(int count) {
      consecutiveFailures = count;
      return this;
    }

    /** The table has a refresh schedule (it is, or was until this pass, FULL). */
    public Builder refreshScheduled(boolean value) {
      refreshScheduled = value;
      return this;
    }

    public Builder quality(Quality value) {
      quality = value;
      return this;
    }

    /**
     * Source records the job could not read and skipped ({@code 'error-handling.mode' = 'ignore'}),
     * as a Quality with one count, {@code skipped}, whose failed rows they are.
     */
    public Builder skipped(Quality value) {
      skipped = value;
      return this;
    }

    public Builder once(Once value) {
      once = value;
      return this;
    }

    /** The full refresh (TableSpec.fullRefresh) this table or flow has carried out. */
    public Builder fullRefreshed(long number) {
      fullRefreshed = number;
      return this;
    }

    public Builder detail(String text) {
      detail = text;
      return this;
    }

    Builder conditions(List<Condition> list) {
      conditions = list;
      return this;
    }

    public TableStatus build() {
      return new TableStatus(
          validatedVersion,
          invalidVersion,
          failedGeneration,
          schema,
          changelogMode,
          topic,
          partitions,
          keySubject,
          keySchemaId,
          valueSubject,
          valueSchemaId,
          subjectsVersion,
          pipelineName,
          jobId,
          jobStartTime,
          savepointTriggerId,
          savepointPath,
          savepointPipeline,
          savepointAt,
          checkpoint,
          restoredFrom,
          jobVersion,
          checkpointIntervalMs,
          errorHandling,
          computePool,
          submission,
          evolution,
          stopRequested,
          consecutiveFailures,
          refreshScheduled,
          quality,
          skipped,
          once,
          fullRefreshed,
          detail,
          conditions);
    }
  }
}
