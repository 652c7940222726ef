package dev.tributary.reconcile;

import dev.tributary.plan.PipelinePlan;
import dev.tributary.plan.QueryPlanner;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkJobs.JobState;
import dev.tributary.port.FlinkJobs.JobSummary;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.RemoteSystemException;
import dev.tributary.port.Topics;
import dev.tributary.reconcile.Reconciler.Next;
import dev.tributary.table.Phase;
import dev.tributary.table.TableStatus;
import dev.tributary.table.TableStatus.Evolution;
import dev.tributary.table.TableStatus.Reason;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keeping the job running: observe it, submit it, restart it after a failure with backoff, and hold
 * a new definition to its readiness window. State restores only into the job shape that wrote it; a
 * new shape starts its sources where START_MODE says, which for the RESUME_OR_* modes is where the
 * previous job stopped (the offsets its sources committed under the table's group).
 */
final class JobSteps {

  private final FlinkJobs jobs;
  private final Transitions transitions;
  private final Reconciler.Settings settings;
  private final Clock clock;
  private final OnceRuns onceRuns;
  private final ExpectationCounts counts;
  private final JobSubmission submission;
  private final StartingJobs starting;
  private final SubmissionSlots slots;

  JobSteps(
      FlinkSql sql,
      FlinkJobs jobs,
      Topics topics,
      QueryPlanner planner,
      Transitions transitions,
      SubjectIds schemaIds,
      Reconciler.Settings settings,
      Clock clock,
      StartingJobs starting) {
    this.jobs = jobs;
    this.transitions = transitions;
    this.settings = settings;
    this.clock = clock;
    this.onceRuns = new OnceRuns(jobs, topics, planner, clock);
    this.counts = new ExpectationCounts(jobs, clock);
    this.starting = starting;
    this.slots = new SubmissionSlots(settings.submissions());
    this.submission =
        new JobSubmission(
            sql, jobs, topics, planner, transitions, onceRuns, schemaIds, slots, clock);
  }

  Next ensureJob(ReconcilePass p, PipelinePlan plan, Optional<JobSummary> live) {
    if (live.isPresent()) {
      return observeRunning(p, plan, live.get(), false);
    }
    Optional<JobSummary> last = p.lastJob(plan.pipelineName());
    if (OnceRuns.once(p) && p.status.once() != null && p.status.once().done()) {
      return onceRuns.done(p); // ran once; only a full refresh of the table runs it again
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
        String before = p.status.jobId();
        return untilStarted(
            p, plan, before, submission.submit(p, plan, restorePoint(p, plan, last), 0));
      }
    }
    if (last.isPresent() && last.get().state() == JobState.FAILED) {
      return restartFailed(p, plan, last.get());
    }
    if (last.isPresent()
        && last.get().state() == JobState.FINISHED
        && !p.status.stopRequested()
        && OnceRuns.once(p)
        && p.status.once() != null
        && last.get().id().equals(p.status.once().jobId())) {
      return onceRuns.finished(p, last.get());
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
    String before = p.status.jobId();
    return untilStarted(
        p,
        plan,
        before,
        submission.submit(p, plan, restorePoint(p, plan, last), p.status.consecutiveFailures()));
  }

  /**
   * For how long a pass that submitted a job watches it start before leaving it to later passes.
   */
  static final Duration SUBMITTED_WATCH = Duration.ofSeconds(1);

  /**
   * How often, at most, that pass looks at the job's pool, from one look's start to the next's
   * ({@link StartingJobs#interval}).
   */
  static final Duration SUBMITTED_POLL = Duration.ofMillis(50);

  /**
   * The pass that has just submitted a job (its submission slot given back; at most {@link
   * StartingJobs#WATCHERS} at once, and none while other passes wait for the pool's slots) looks at
   * the job's pool every {@link StartingJobs#interval} for up to {@link #SUBMITTED_WATCH}, and
   * records RUNNING itself once every task runs. The user waits for RUNNING; left to the next pass,
   * it was seen after the pass's release, the worker's next claim and its look (a median 230 ms
   * after the submission's event on a warm MiniCluster, where a person polling the JobManager every
   * 50 ms saw it 120 ms after the INSERT). A job that does not run by then, or a JobManager that
   * does not answer, is left to the next pass, as before. RUNNING here means what it means there
   * ({@code RestFlinkJobs}: every task runs), so a stop or a cancel right after it meets a job
   * whose tasks all run.
   */
  private Next untilStarted(ReconcilePass p, PipelinePlan plan, String before, Next next) {
    TableStatus.Condition submitted = p.status.condition(TableStatus.JOB_RUNNING);
    String jobId = p.status.jobId();
    if (next.failed()
        || jobId == null
        || jobId.equals(before)
        || submitted == null
        || submitted.reason() != Reason.JobSubmitted) {
      return next;
    }
    if (slots.busy(plan.pool()) || !starting.watch()) {
      return next; // a backlog is being submitted: the worker's watch sees to its jobs
    }
    long submittedAt = System.nanoTime();
    long deadline = submittedAt + SUBMITTED_WATCH.toNanos();
    try {
      long notBefore = submittedAt; // the first look: one that can list the job
      while (true) {
        long looked = System.nanoTime();
        Optional<JobSummary> job =
            starting.overview(plan.pool(), notBefore).stream()
                .filter(j -> j.id().equals(jobId))
                .findFirst();
        JobState state = job.map(JobSummary::state).orElse(JobState.CREATED);
        if (state == JobState.RUNNING) {
          return observeRunning(p, plan, job.get(), true);
        }
        boolean starts =
            state == JobState.CREATED
                || state == JobState.INITIALIZING
                || state == JobState.DEPLOYING;
        long pause = starting.interval(plan.pool()).toNanos();
        long nextLook = looked + pause; // from this look's start, not its answer
        if (!starts || nextLook > deadline) {
          return next; // failing, or slow to start: the next passes see to it
        }
        long wait = nextLook - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(Duration.ofNanos(wait).toMillis());
        }
        notBefore = System.nanoTime() - pause / 2; // another pass's look of the last half interval
      }
    } catch (RemoteSystemException e) {
      return next;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return next;
    } finally {
      starting.done();
    }
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
    return found != null ? found : JobSubmission.imported(p);
  }

  /**
   * The newest checkpoint of the job recorded while this pipeline ran: what a restart restores when
   * the JobManager no longer knows the failed job (restarted without HA, or it expired).
   */
  private String recorded(ReconcilePass p, PipelinePlan plan) {
    TableStatus.RestorePoint point = p.status.checkpoint();
    if (point == null || !plan.pipelineName().equals(point.pipeline())) {
      return null;
    }
    // The recorded one may be gone: Flink keeps the newest few and deletes the rest. The newest
    // complete one in that job's directory is where the job really was.
    String directory = Transitions.checkpointDirectory(point.path());
    return directory == null ? point.path() : jobs.newestCheckpoint(directory).orElse(point.path());
  }

  /**
   * Which job of each table was last asked for its checkpoints, when (in this process), and what it
   * answered: a pass within the interval uses that answer, so the sweep's look and the claimed pass
   * it calls for agree on what to record.
   */
  private final Map<UUID, Asked> checkpointsAsked = new ConcurrentHashMap<>();

  private record Asked(String jobId, Instant at, Optional<FlinkJobs.Completed> newest) {}

  /**
   * Records the job's newest completed checkpoint, asking the JobManager at most once per
   * checkpoint interval (and not before one can have completed since the last one recorded). A
   * savepoint the job started from counts as its first restore point.
   */
  private void recordCheckpoint(
      ReconcilePass p, JobSummary job, TableStatus.Builder b, boolean startSeen) {
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
    boolean answered =
        asked != null && asked.jobId().equals(job.id()) && asked.at().plus(interval).isAfter(now);
    boolean due =
        point == null
            || !point.path().contains(job.id())
            || point.completedAt() == null
            || !point.completedAt().plus(interval).isAfter(now);
    if (!due || startSeen) {
      return;
    }
    Optional<FlinkJobs.Completed> newest;
    if (answered) {
      newest = asked.newest();
    } else {
      newest = jobs.latestCompleted(job.id());
      checkpointsAsked.put(p.table.id(), new Asked(job.id(), now, newest));
    }
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

  /** How long a job that is being created or initialised may take before it is polled slower. */
  static final Duration STARTING = Duration.ofSeconds(2);

  /** While a job starts, how often a pass looks at it: the user waits for RUNNING. */
  static final Duration STARTING_POLL = Duration.ofMillis(50);

  /**
   * When to look again at a job that does not run yet: every {@link #STARTING_POLL} while it is
   * being created, initialised or deployed within {@link #STARTING} of its start time (the
   * JobManager's clock; a skewed one only turns this off), else {@link Next#soon()}. A job that
   * takes longer (a slow restore, say) is not polled fast for as long as it takes.
   */
  private Next untilItRuns(JobSummary job) {
    Instant now = clock.instant();
    boolean starting =
        (job.state() == JobState.CREATED
                || job.state() == JobState.INITIALIZING
                || job.state() == JobState.DEPLOYING)
            && job.startTime() != null
            && !job.startTime().isAfter(now)
            && job.startTime().isAfter(now.minus(STARTING));
    return starting ? new Next(STARTING_POLL, false) : Next.soon();
  }

  /**
   * Records what the job's state means for the table. {@code startSeen}: this pass submitted the
   * job and has just seen every task run, so no checkpoint of its own can be there yet worth a call
   * to the JobManager before RUNNING is recorded; the next pass, or the sweep, asks.
   */
  private Next observeRunning(
      ReconcilePass p, PipelinePlan plan, JobSummary job, boolean startSeen) {
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
      recordCheckpoint(p, job, b, startSeen);
      counts.countExpectations(p, plan, job, b);
      counts.countSkipped(p, plan, job, b);
    }
    b.job(job.id(), job.startTime())
        .failures(stable ? 0 : p.status.consecutiveFailures())
        .stopRequested(false)
        .savepoint(null, null)
        .savepointOf(null);
    Next after = running ? p.resync() : untilItRuns(job);
    if (evolution != null && running) {
      Instant since = evolution.runningSince() != null ? evolution.runningSince() : clock.instant();
      // A move is done once the same job runs on the new pool: what a move can break (the pool's
      // gateway refusing it, its cluster unable to read the savepoint or to schedule the job)
      // shows before that. A new definition must run for the readiness window.
      Duration left =
          evolution.move()
              ? Duration.ZERO
              : Duration.between(clock.instant(), since.plus(settings.readinessWindow()));
      if (evolution.move()) {
        p.event(
            "NORMAL",
            "MoveCompleted",
            "Job "
                + job.id()
                + " runs on compute pool "
                + plan.pool()
                + " from "
                + evolution.savepointPath()
                + "; the move from "
                + evolution.fromPool()
                + " is complete");
        b.evolution(null);
      } else if (left.isNegative() || left.isZero()) {
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
        b.evolution(evolution.runningSince(since));
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
    // The steps end here: seen RUNNING, the observed generation goes into this write.
    return p.saveLast(next, s, after);
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
    if (cause.contains(ExpectationCounts.VIOLATION)
        || cause.contains(ExpectationCounts.UNREADABLE)) {
      // FAIL UPDATE, or 'error-handling.mode' = 'fail': the data broke a rule; restarting would
      // only fail on the same record again.
      boolean violation = cause.contains(ExpectationCounts.VIOLATION);
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
    String before = p.status.jobId();
    return untilStarted(
        p, plan, before, submission.submit(p, plan, restore, p.status.consecutiveFailures()));
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
