package dev.tributary.reconcile;

import dev.tributary.plan.PipelinePlan;
import dev.tributary.plan.QueryPlanner;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkJobs.JobState;
import dev.tributary.port.FlinkJobs.JobSummary;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.Topics;
import dev.tributary.reconcile.Reconciler.Next;
import dev.tributary.sql.Clauses;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Statement;
import dev.tributary.sql.TableSchema;
import dev.tributary.table.Phase;
import dev.tributary.table.TableStatus;
import dev.tributary.table.TableStatus.Evolution;
import dev.tributary.table.TableStatus.Reason;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Keeping the job running: observe it, submit it, restart it after a failure with backoff, and hold
 * a new definition to its readiness window. State restores only into the job shape that wrote it; a
 * new shape starts its sources where START_MODE says, which for the RESUME_OR_* modes is where the
 * previous job stopped (the offsets its sources committed under the table's group).
 */
final class JobSteps {

  private final FlinkSql sql;
  private final FlinkJobs jobs;
  private final Topics topics;
  private final QueryPlanner planner;
  private final Transitions transitions;
  private final Reconciler.Settings settings;
  private final Clock clock;

  JobSteps(
      FlinkSql sql,
      FlinkJobs jobs,
      Topics topics,
      QueryPlanner planner,
      Transitions transitions,
      Reconciler.Settings settings,
      Clock clock) {
    this.sql = sql;
    this.jobs = jobs;
    this.topics = topics;
    this.planner = planner;
    this.transitions = transitions;
    this.settings = settings;
    this.clock = clock;
  }

  /** Flink's option for a job id chosen by the submitter (honoured by the session executor). */
  static final String FIXED_JOB_ID = "$internal.pipeline.job-id";

  /** The consumer group under which a table's jobs commit their source offsets. */
  static String group(UUID table) {
    return "tributary-" + table;
  }

  Next ensureJob(ReconcilePass p, PipelinePlan plan, Optional<JobSummary> live) {
    if (live.isPresent()) {
      return observeRunning(p, plan, live.get());
    }
    Optional<JobSummary> last = p.lastJob(plan.pipelineName());
    if (once(p) && p.status.once() != null && p.status.once().done()) {
      return onceDone(p); // ran once; only a full refresh of the table runs it again
    }
    Evolution evolution = p.status.evolution();
    if (evolution != null && last.isPresent() && last.get().state() == JobState.FAILED) {
      return transitions.rollBack(p, failureCause(last.get()));
    }
    if (evolution != null && overdue(evolution)) {
      return transitions.rollBack(p, "no running job within " + window());
    }
    if (p.status.failedGeneration() > 0 && p.table.generation() > p.status.failedGeneration()) {
      // The user resumed or changed a FAILED table: a fresh round of attempts.
      p.status = p.status.toBuilder().failedAt(0).failures(0).build();
      if (last.isPresent() && last.get().state() == JobState.FAILED) {
        return submit(p, plan, restorePoint(p, plan, last), 0);
      }
    }
    if (last.isPresent() && last.get().state() == JobState.FAILED) {
      return restartFailed(p, plan, last.get());
    }
    if (last.isPresent()
        && last.get().state() == JobState.FINISHED
        && !p.status.stopRequested()
        && once(p)
        && p.status.once() != null
        && last.get().id().equals(p.status.once().jobId())) {
      return onceFinished(p, last.get());
    }
    if (last.isPresent() && last.get().state() == JobState.FINISHED && !p.status.stopRequested()) {
      // A bounded query ran to its end; there is nothing to restart.
      TableStatus s =
          p.status
              .with(
                  TableStatus.JOB_RUNNING,
                  false,
                  Reason.Completed,
                  "Job " + last.get().id() + " finished: the query is bounded")
              .with(TableStatus.READY, true, Reason.Completed, "The query completed");
      return p.save(Phase.RUNNING, s, p.resync());
    }
    // A job that ended while it should run, a resume, or a new definition: submit it.
    return submit(p, plan, restorePoint(p, plan, last), p.status.consecutiveFailures());
  }

  /**
   * The savepoint or checkpoint to restore: only one written by a job of this very pipeline (same
   * query, columns, key and formats), since another shape's state does not fit its operators.
   */
  private String restorePoint(ReconcilePass p, PipelinePlan plan, Optional<JobSummary> last) {
    if (p.status.savepointPath() != null
        && plan.pipelineName().equals(p.status.savepointPipeline())) {
      return p.status.savepointPath();
    }
    String found =
        last.flatMap(j -> jobs.latestRestorePath(j.id())).orElseGet(() -> recorded(p, plan));
    return found != null ? found : imported(p);
  }

  /**
   * IMPORT CHECKPOINT of a flow: the savepoint or retained checkpoint its first job restores, so
   * that a job migrated from elsewhere goes on where it stopped. Only until the flow's own job has
   * completed a checkpoint; a path Flink cannot read fails the job with that cause, in the status.
   */
  static String imported(ReconcilePass p) {
    Statement.CreateFlow flow = p.table.spec().flowStatement();
    if (flow == null
        || flow.importCheckpoint() == null
        || p.status.checkpoint() != null
        || p.table.spec().fullRefresh() > 0) { // a full refresh starts clean
      return null;
    }
    return flow.importCheckpoint();
  }

  /**
   * The newest checkpoint recorded while a job of this pipeline ran: what a restart restores when
   * the JobManager no longer knows the failed job (restarted without HA, or it expired).
   */
  private static String recorded(ReconcilePass p, PipelinePlan plan) {
    TableStatus.RestorePoint point = p.status.checkpoint();
    return point != null && plan.pipelineName().equals(point.pipeline()) ? point.path() : null;
  }

  /** Which job of each table was last asked for its checkpoints, and when (in this process). */
  private final Map<UUID, Asked> checkpointsAsked = new ConcurrentHashMap<>();

  private record Asked(String jobId, Instant at) {}

  /**
   * Records the job's newest completed checkpoint, asking the JobManager at most once per
   * checkpoint interval (and not before one can have completed since the last one recorded). A
   * savepoint the job started from counts as its first restore point.
   */
  private void recordCheckpoint(ReconcilePass p, JobSummary job, TableStatus.Builder b) {
    TableStatus.RestorePoint point = p.status.checkpoint();
    if (p.status.savepointPath() != null
        && job.name().equals(p.status.savepointPipeline())
        && (point == null || !job.name().equals(point.pipeline()))) {
      point =
          new TableStatus.RestorePoint(
              p.status.savepointPath(), job.name(), p.status.savepointAt());
      b.checkpoint(point);
    }
    Duration interval =
        Duration.ofMillis(Math.max(p.status.checkpointIntervalMs(), settings.resync().toMillis()));
    Instant now = clock.instant();
    Asked asked = checkpointsAsked.get(p.table.id());
    boolean due =
        (asked == null
                || !asked.jobId().equals(job.id())
                || !asked.at().plus(interval).isAfter(now))
            && (point == null
                || !point.path().contains(job.id())
                || point.completedAt() == null
                || !point.completedAt().plus(interval).isAfter(now));
    if (!due) {
      return;
    }
    checkpointsAsked.put(p.table.id(), new Asked(job.id(), now));
    Optional<FlinkJobs.Completed> newest = jobs.latestCompleted(job.id());
    if (newest.isPresent() && (point == null || !newest.get().path().equals(point.path()))) {
      b.checkpoint(
          new TableStatus.RestorePoint(
              newest.get().path(),
              job.name(),
              newest.get().completedAt() != null ? newest.get().completedAt() : now));
      // The job has a checkpoint of its own: an earlier job's retained ones are not needed.
      String before = point == null ? null : Transitions.checkpointDirectory(point.path());
      String current = Transitions.checkpointDirectory(newest.get().path());
      if (before != null && !before.equals(current)) {
        try {
          transitions.deleteCheckpoints(p, before);
        } catch (ReconcileStore.ClaimLostException e) {
          throw e;
        } catch (RuntimeException e) {
          // Not worth failing a running table over: the next job change tries again.
          p.event("WARNING", "CheckpointsKept", "Checkpoints under " + before + " kept: " + e);
        }
      }
    }
  }

  /** An INSERT ONCE flow: one bounded run, recorded when it is done. */
  static boolean once(ReconcilePass p) {
    return p.table.spec().flowStatement() != null && p.table.spec().flowStatement().once();
  }

  private Next onceFinished(ReconcilePass p, JobSummary job) {
    Long rows = jobs.recordsReceived(job.id(), "Writer").orElse(null);
    TableStatus.Once run = p.status.once();
    p.event(
        "NORMAL",
        "OnceCompleted",
        "The INSERT ONCE run (job "
            + job.id()
            + ") is done"
            + (rows == null ? "" : ": " + rows + " rows written")
            + "; it runs again only on a full refresh of the table");
    p.status =
        p.status.toBuilder()
            .once(new TableStatus.Once(run.bounds(), job.id(), "SUCCEEDED", rows, clock.instant()))
            .failures(0)
            .build();
    return onceDone(p);
  }

  private Next onceDone(ReconcilePass p) {
    TableStatus.Once run = p.status.once();
    String message =
        "Ran once (job "
            + run.jobId()
            + (run.rows() == null ? "" : ", " + run.rows() + " rows")
            + ", finished "
            + run.finishedAt()
            + ")";
    TableStatus s =
        p.status
            .with(TableStatus.JOB_RUNNING, false, Reason.Completed, message)
            .with(TableStatus.READY, true, Reason.Completed, message);
    return p.save(Phase.SUCCEEDED, s, p.resync());
  }

  /**
   * Before an INSERT ONCE flow first runs, the end offsets of its sources: it reads up to them, on
   * every attempt, so that a restart reads the same rows. Recorded before the job is submitted.
   */
  private Map<String, Map<Integer, Long>> onceBounds(ReconcilePass p) {
    if (p.status.once() != null) {
      return p.status.once().bounds();
    }
    Map<String, Map<Integer, Long>> bounds = new TreeMap<>();
    for (Statement.CreateSourceTable source :
        planner.sourceDeclarations(p.table.name(), p.table.spec().definition().query())) {
      String topic = source.options().get("topic");
      if (topic != null && "kafka".equals(source.options().get("connector"))) {
        bounds.put(topic, topics.endOffsets(topic));
      }
    }
    p.status =
        p.status.toBuilder().once(new TableStatus.Once(bounds, null, null, null, null)).build();
    p.event("NORMAL", "OnceBounded", "The INSERT ONCE run reads its sources up to " + bounds);
    return bounds;
  }

  /** Expectations' counters of a running job, folded into the table's counts. */
  private void countExpectations(
      ReconcilePass p, PipelinePlan plan, JobSummary job, TableStatus.Builder b) {
    if (plan.expectations().isEmpty()) {
      return;
    }
    Map<String, Long> counters = jobs.operatorCounters(job.id(), EXPECTATION_METRICS);
    List<TableStatus.Count> read = new ArrayList<>();
    for (TableSchema.Expectation e : plan.expectations()) {
      String metric = metricName(e.name());
      read.add(
          new TableStatus.Count(
              e.name(),
              counters.getOrDefault(metric + ".passed", 0L),
              counters.getOrDefault(metric + ".failed", 0L)));
    }
    Optional<TableStatus.Quality> after =
        TableStatus.Quality.after(p.status.quality(), job.id(), read, clock.instant());
    if (after.isEmpty()) {
      return;
    }
    TableStatus.Quality next = after.get();
    b.quality(next);
    p.event(
        "NORMAL",
        "ExpectationProgress",
        next.totals().stream()
            .map(c -> c.name() + ": " + c.passed() + " passed, " + c.failed() + " failed")
            .collect(Collectors.joining("; ")));
  }

  /** The metric group the expectations function counts in (dev.tributary.flinkformat). */
  static final String EXPECTATION_METRICS = "tributary_expectation";

  /** An expectation's name as the function names its metric group (see Expectations). */
  static String metricName(String name) {
    return name.replaceAll("[^A-Za-z0-9_]", "_");
  }

  /** The marker of a FAIL UPDATE violation in a job's failure cause. */
  static final String VIOLATION = "EXPECTATION_VIOLATION";

  /** The marker of an unreadable source record under 'error-handling.mode' = 'fail'. */
  static final String UNREADABLE = "DESERIALIZATION_ERROR";

  /** The metric group of the guarded format's counter of skipped records. */
  static final String ERROR_METRICS = "tributary_error_handling";

  /** Records the guarded format skipped in a running job, summed over the table's jobs. */
  private void countSkipped(
      ReconcilePass p, PipelinePlan plan, JobSummary job, TableStatus.Builder b) {
    if (!"ignore".equals(plan.effective().options().get("error-handling.mode"))) {
      return;
    }
    long skipped = jobs.operatorCounters(job.id(), ERROR_METRICS).getOrDefault("skipped", 0L);
    Optional<TableStatus.Quality> after =
        TableStatus.Quality.after(
            p.status.skipped(),
            job.id(),
            List.of(new TableStatus.Count("skipped", 0, skipped)),
            clock.instant());
    if (after.isEmpty()) {
      return;
    }
    TableStatus.Quality next = after.get();
    b.skipped(next);
    long total = next.totals().isEmpty() ? 0 : next.totals().get(0).failed();
    if (total > 0) {
      p.event(
          "WARNING",
          "RecordsSkipped",
          total
              + " source records could not be read and were skipped ('error-handling.mode' ="
              + " 'ignore')");
    }
  }

  private Next observeRunning(ReconcilePass p, PipelinePlan plan, JobSummary job) {
    Phase next =
        switch (job.state()) {
          case RUNNING -> Phase.RUNNING;
          case RESTARTING, FAILING -> Phase.DEGRADED;
          case CANCELLING -> Phase.STOPPING;
          default -> Phase.CREATING;
        };
    boolean running = next == Phase.RUNNING;
    Evolution evolution = p.status.evolution();
    if (evolution != null && !running && overdue(evolution)) {
      return transitions.rollBack(p, "job " + job.id() + " not running within " + window());
    }
    // Failures count as consecutive until a job has stayed up for a while.
    boolean stable =
        running
            && job.startTime() != null
            && job.startTime().isBefore(clock.instant().minus(Reconciler.STABLE_AFTER));
    TableStatus.Builder b = p.status.toBuilder();
    if (running) {
      recordCheckpoint(p, job, b);
      countExpectations(p, plan, job, b);
      countSkipped(p, plan, job, b);
    }
    b.job(job.id(), job.startTime())
        .failures(stable ? 0 : p.status.consecutiveFailures())
        .stopRequested(false)
        .savepoint(null, null)
        .savepointOf(null);
    Next after = running ? p.resync() : Next.soon();
    if (evolution != null && running) {
      Instant since = evolution.runningSince() != null ? evolution.runningSince() : clock.instant();
      Duration left = Duration.between(clock.instant(), since.plus(settings.readinessWindow()));
      if (left.isNegative() || left.isZero()) {
        p.event(
            "NORMAL",
            "EvolutionCompleted",
            "Version "
                + p.table.definitionVersion()
                + " ran for "
                + window()
                + "; the evolution from version "
                + evolution.fromVersion()
                + " is complete");
        b.evolution(null);
      } else {
        b.evolution(
            new Evolution(
                evolution.fromVersion(),
                evolution.fromPipeline(),
                evolution.savepointPath(),
                evolution.startedAt(),
                since));
        after = new Next(left.plusMillis(100), false);
      }
    }
    TableStatus s =
        b.build()
            .with(
                TableStatus.JOB_RUNNING,
                running,
                running ? Reason.JobRunning : Reason.Provisioning,
                "Job " + job.id() + " is " + job.state())
            .with(
                TableStatus.READY,
                running,
                running ? Reason.JobRunning : Reason.Provisioning,
                running ? "Running" : "Job is " + job.state());
    if (running && p.phase != Phase.RUNNING) {
      p.event("NORMAL", "JobRunning", "Job " + job.id() + " is running");
      s = s.toBuilder().detail(null).build();
    }
    if (running && s.checkpoint() != null && job.name().equals(s.checkpoint().pipeline())) {
      p.status = s;
      p.freshness(
          s.checkpoint().completedAt(),
          Duration.ofMillis(Math.max(s.checkpointIntervalMs(), 1000)),
          // Checkpoints are seen once per pass at most: the slack covers the time between passes.
          settings.resync().plusSeconds(10),
          clock.instant());
      s = p.status;
    }
    return p.save(next, s, after);
  }

  /** When a failed job was first seen without a cause (the JobManager records it a bit later). */
  private final Map<String, Instant> causeAwaited = new ConcurrentHashMap<>();

  static final Duration CAUSE_WAIT = Duration.ofSeconds(10);

  private Next restartFailed(ReconcilePass p, PipelinePlan plan, JobSummary failed) {
    Optional<String> known = jobs.job(failed.id()).flatMap(FlinkJobs.JobDetail::failureCause);
    if (known.isEmpty() && failed.id().equals(p.status.jobId())) {
      // The cause decides what happens next (a FAIL UPDATE violation is not restarted): wait for
      // it a little before taking the failure as one to restart from.
      Instant first = causeAwaited.computeIfAbsent(failed.id(), id -> clock.instant());
      if (clock.instant().isBefore(first.plus(CAUSE_WAIT))) {
        return new Next(Duration.ofMillis(500), false);
      }
    }
    causeAwaited.remove(failed.id());
    String cause = known.orElse("the job failed");
    if (ReconcilePass.waitingForSlots(cause) && failed.id().equals(p.status.jobId())) {
      // The cluster is full: wait with backoff and resubmit; this is not the table's failure.
      p.status = p.status.toBuilder().job(null, null).build();
      return p.waitingForSlots(cause, Duration.ofSeconds(5));
    }
    int failures = p.status.consecutiveFailures() + (failed.id().equals(p.status.jobId()) ? 1 : 0);
    if (cause.contains(VIOLATION) || cause.contains(UNREADABLE)) {
      // FAIL UPDATE, or 'error-handling.mode' = 'fail': the data broke a rule; restarting would
      // only fail on the same record again.
      boolean violation = cause.contains(VIOLATION);
      Reason reason = violation ? Reason.ExpectationViolated : Reason.RecordUnreadable;
      if (p.phase != Phase.FAILED) {
        p.event("WARNING", reason.name(), cause);
      }
      TableStatus s =
          p.stoppedTrying(
              failures,
              cause,
              reason,
              violation
                  ? "Stopped by a FAIL UPDATE expectation; fix the data or change the"
                      + " expectation, then RESUME"
                  : "Stopped at a source record that cannot be read ('error-handling.mode' ="
                      + " 'fail'); remove it, or set 'ignore', then RESUME");
      return p.save(Phase.FAILED, s, p.resync());
    }
    if (failures >= Reconciler.MAX_FAILURES) {
      if (p.phase != Phase.FAILED) {
        p.event(
            "WARNING",
            "RetriesExhausted",
            "Failed " + failures + " times in a row; last cause: " + cause);
      }
      TableStatus s =
          p.stoppedTrying(
              failures,
              cause,
              Reason.RetriesExhausted,
              "Failed " + failures + " times; resume or change the table to try again");
      return p.save(Phase.FAILED, s, p.resync());
    }
    Duration backoff = Reconciler.failureBackoff(failures);
    if (failed.id().equals(p.status.jobId())) {
      // First sight of this failure: record it and wait out the backoff before restarting.
      p.event(
          "WARNING",
          "JobFailed",
          "Attempt "
              + failures
              + " of "
              + Reconciler.MAX_FAILURES
              + " failed: "
              + cause
              + "; restarting in "
              + backoff.toSeconds()
              + " s");
      TableStatus s =
          p.status.toBuilder()
              .failures(failures)
              .detail(cause)
              .job(null, null)
              .build()
              .with(TableStatus.JOB_RUNNING, false, Reason.JobFailed, cause)
              .with(
                  TableStatus.READY,
                  false,
                  Reason.JobRestarting,
                  "Restarting after failure " + failures);
      p.save(Phase.FAILING, s, null);
      return new Next(backoff, true);
    }
    String restore =
        jobs.latestRestorePath(failed.id())
            .orElseGet(() -> restorePoint(p, plan, Optional.empty()));
    p.event(
        "NORMAL",
        "JobRestarted",
        "Restarting failed job "
            + failed.id()
            + (restore == null ? " without state (none was kept)" : " from " + restore));
    return submit(p, plan, restore, p.status.consecutiveFailures());
  }

  /**
   * The fixed id of a submission: derived from the table, the pipeline and the submission number,
   * so two passes that race (a lease that expired mid-pass) submit the same id, and Flink's
   * Dispatcher refuses the second job with it.
   */
  static String jobId(UUID table, String pipeline, long submission) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256")
              .digest((table + "/" + pipeline + "/" + submission).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(hash, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean taken(ReconcilePass p, String jobId) {
    return p.overview.stream().anyMatch(j -> j.id().equals(jobId));
  }

  private Next submit(ReconcilePass p, PipelinePlan plan, String restorePath, int failures) {
    // A job reads other tables through their topics: one that is not provisioned yet (created in
    // the same script) is waited for, not read through its query.
    List<ObjectName> waiting =
        planner.pendingSources(p.table.name(), p.table.spec().definition().query());
    if (!waiting.isEmpty()) {
      String message = "Waiting for " + waiting + " to be provisioned: this table's job reads them";
      if (!message.equals(p.status.detail())) {
        p.event("NORMAL", "WaitingForUpstream", message);
      }
      p.save(
          p.phase == Phase.PENDING ? Phase.CREATING : p.phase,
          p.status.toBuilder()
              .detail(message)
              .build()
              .with(TableStatus.JOB_RUNNING, false, Reason.WaitingForUpstream, message),
          null);
      return new Next(Duration.ofSeconds(1), false);
    }
    // Intent first: the pipeline name and the job's fixed id are recorded before the job exists.
    // A later pass adopts a job of that name or id instead of submitting another, and a racing
    // pass that read the same status submits the same id, which Flink refuses the second time.
    long submission = p.status.submission();
    while (taken(p, jobId(p.table.id(), plan.pipelineName(), submission))) {
      submission++; // that id belongs to a job that ended: the next submission gets the next id
    }
    String fixedId = jobId(p.table.id(), plan.pipelineName(), submission);
    long interval = plan.checkpointInterval().toMillis();
    // Never RUNNING while no job runs: a restart or an evolution stays ALTERING (FAILING after a
    // failure), anything else is CREATING until the new job is seen running.
    Phase submitting =
        p.phase == Phase.ALTERING || p.phase == Phase.FAILING ? p.phase : Phase.CREATING;
    Map<String, Map<Integer, Long>> bounds = once(p) ? onceBounds(p) : Map.of();
    p.save(
        submitting,
        p.status.toBuilder()
            .pipelineName(plan.pipelineName())
            .job(null, null)
            .jobRuns(p.table.definitionVersion(), interval)
            .submission(submission)
            .failures(failures)
            .build(),
        null);
    p.step("submit");
    Map<String, String> properties = new LinkedHashMap<>(plan.sessionProperties(restorePath));
    properties.put(FIXED_JOB_ID, fixedId);
    if (restorePath != null && restorePath.equals(imported(p))) {
      // Another job's state: what does not map onto this job's operators is left behind.
      properties.put("execution.state-recovery.ignore-unclaimed-state", "true");
    }
    if (once(p)) {
      // Unchained, the sink's writer is a vertex of its own, whose input count is the rows written.
      properties.put("pipeline.operator-chaining.enabled", "false");
    }
    Map<String, String> positions = new LinkedHashMap<>();
    String jobId;
    try {
      jobId =
          planner.inSession(
              p.table.name(),
              p.table.spec().definition().query(),
              starts(p, plan, restorePath != null, positions, bounds),
              properties,
              session -> {
                for (String statement : plan.jobStatements(topics.transactionMaxTimeout())) {
                  sql.execute(session, statement);
                }
                return sql.execute(session, plan.insert())
                    .jobId()
                    .orElseThrow(() -> new IllegalStateException("The INSERT returned no job id"));
              });
    } catch (FlinkSql.StatementFailedException e) {
      if (e.getMessage().contains("DuplicateJobSubmission")
          || e.getMessage().contains("has already been submitted")) {
        // Another pass submitted this very job: adopt it on the next look.
        p.event("NORMAL", "JobAdopted", "Job " + fixedId + " was already submitted; adopting it");
        return Next.soon();
      }
      if (p.status.evolution() != null) {
        return transitions.rollBack(p, "Flink refused the new job: " + e.getMessage());
      }
      throw e;
    }
    p.event(
        "NORMAL",
        "JobSubmitted",
        "Submitted job "
            + jobId
            + " ("
            + plan.pipelineName()
            + ")"
            + (restorePath == null
                ? "; sources start at " + positions
                : " restoring " + restorePath));
    p.step("submitted");
    TableStatus.Builder submitted = p.status.toBuilder();
    if (once(p)) {
      TableStatus.Once run = p.status.once();
      submitted.once(new TableStatus.Once(run.bounds(), jobId, null, null, null));
    }
    TableStatus s =
        submitted
            .job(jobId, null)
            .restoredFrom(
                restorePath == null
                    ? "no state; sources start at " + positions
                    : "state of " + restorePath)
            .build()
            .with(
                TableStatus.JOB_RUNNING, false, Reason.JobSubmitted, "Job " + jobId + " submitted");
    return p.save(Phase.CREATING, s, new Next(Duration.ofMillis(100), false));
  }

  /**
   * Options for each Kafka source of the job: the table's consumer group (sources commit their
   * offsets there at every checkpoint and savepoint) and where to start without restored state. The
   * RESUME_OR_* modes continue a source from the group's committed offsets when it has them, so a
   * new definition reads each source row once across the change; a source read for the first time,
   * and the FROM_* modes, start where START_MODE says. Restored state always wins.
   */
  private QueryPlanner.SourceOptions starts(
      ReconcilePass p,
      PipelinePlan plan,
      boolean restoring,
      Map<String, String> positions,
      Map<String, Map<Integer, Long>> bounds) {
    String group = group(p.table.id());
    Clauses.StartMode mode = plan.effective().startMode();
    boolean resume = mode.kind().resumes();
    Map<String, Map<Integer, Long>> committed =
        resume && !restoring ? topics.committedOffsets(group) : Map.of();
    Evolution evolution = p.status.evolution();
    String savepoint = resume && !restoring && evolution != null ? evolution.savepointPath() : null;
    Map<String, String> fallback = plan.sourceStartOptions(clock.instant());
    return options -> {
      Map<String, String> extra = new LinkedHashMap<>();
      extra.put("properties.group.id", group);
      String topic = options.get("topic");
      if (!"kafka".equals(options.get("connector")) || topic == null) {
        return extra;
      }
      extra.putAll(plan.errorHandling(options));
      if (bounds.containsKey(topic)) {
        extra.put("scan.bounded.mode", "specific-offsets");
        extra.put("scan.bounded.specific-offsets", PipelinePlan.specificOffsets(bounds.get(topic)));
      }
      // Exact: where the old job's sources were at its final savepoint. Else the offsets they
      // committed, which can lag the savepoint by up to one checkpoint (rows read again).
      Map<Integer, Long> offsets =
          savepoint == null
              ? null
              : jobs.sourceOffsets(savepoint, Set.of(topic)).map(m -> m.get(topic)).orElse(null);
      String from = "savepoint offsets ";
      if (offsets == null) {
        offsets = committed.get(topic);
        from = "committed offsets ";
      }
      if (offsets != null && !offsets.isEmpty()) {
        extra.put("scan.startup.mode", "specific-offsets");
        extra.put("scan.startup.specific-offsets", PipelinePlan.specificOffsets(offsets));
        positions.put(topic, from + offsets);
      } else {
        extra.putAll(fallback);
        positions.put(topic, mode.fallback());
      }
      return extra;
    };
  }

  private boolean overdue(Evolution evolution) {
    Instant from = evolution.runningSince() != null ? null : evolution.startedAt();
    return from != null
        && clock.instant().isAfter(from.plus(settings.readinessWindow()).plusSeconds(30));
  }

  private String window() {
    return settings.readinessWindow().toSeconds() + " s";
  }

  private String failureCause(JobSummary job) {
    return jobs.job(job.id()).flatMap(FlinkJobs.JobDetail::failureCause).orElse("the job failed");
  }
}
