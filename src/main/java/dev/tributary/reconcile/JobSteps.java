package dev.tributary.reconcile;

import dev.tributary.reconcile.Reconciler.Next;
import dev.tributary.reconcile.TableStatus.Reason;
import dev.tributary.reconcile.port.FlinkJobs;
import dev.tributary.reconcile.port.FlinkJobs.JobState;
import dev.tributary.reconcile.port.FlinkJobs.JobSummary;
import dev.tributary.reconcile.port.FlinkSql;
import dev.tributary.table.Phase;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/** Keeping the job running: observe it, submit it, restart it after a failure with backoff. */
final class JobSteps {

  private final FlinkSql sql;
  private final FlinkJobs jobs;
  private final QueryPlanner planner;
  private final Reconciler.Faults faults;
  private final Clock clock;

  JobSteps(
      FlinkSql sql, FlinkJobs jobs, QueryPlanner planner, Reconciler.Faults faults, Clock clock) {
    this.sql = sql;
    this.jobs = jobs;
    this.planner = planner;
    this.faults = faults;
    this.clock = clock;
  }

  Next ensureJob(ReconcilePass p, PipelinePlan plan, Optional<JobSummary> live) {
    if (live.isPresent()) {
      return observeRunning(p, live.get());
    }
    Optional<JobSummary> last = p.lastJob(plan.pipelineName());
    if (p.status.failedGeneration() > 0 && p.table.generation() > p.status.failedGeneration()) {
      // The user resumed or changed a FAILED table: a fresh round of attempts.
      p.status = p.status.toBuilder().failedAt(0).failures(0).build();
      if (last.isPresent() && last.get().state() == JobState.FAILED) {
        return submit(
            p, plan, jobs.latestRestorePath(last.get().id()).orElse(p.status.savepointPath()), 0);
      }
    }
    if (last.isPresent() && last.get().state() == JobState.FAILED) {
      return restartFailed(p, plan, last.get());
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
    // A job that ended while it should run: resubmit, restoring whatever state it left.
    String restore = p.status.savepointPath();
    if (restore == null && last.isPresent()) {
      restore = jobs.latestRestorePath(last.get().id()).orElse(null);
    }
    return submit(p, plan, restore, p.status.consecutiveFailures());
  }

  private Next observeRunning(ReconcilePass p, JobSummary job) {
    Phase next =
        switch (job.state()) {
          case RUNNING -> Phase.RUNNING;
          case RESTARTING, FAILING -> Phase.DEGRADED;
          case CANCELLING -> Phase.STOPPING;
          default -> Phase.CREATING;
        };
    boolean running = next == Phase.RUNNING;
    // Failures count as consecutive until a job has stayed up for a while.
    boolean stable =
        running
            && job.startTime() != null
            && job.startTime().isBefore(clock.instant().minus(Reconciler.STABLE_AFTER));
    TableStatus s =
        p.status.toBuilder()
            .job(job.id(), job.startTime())
            .failures(stable ? 0 : p.status.consecutiveFailures())
            .stopRequested(false)
            .savepoint(null, null)
            .build();
    s =
        s.with(
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
    return p.save(next, s, running ? p.resync() : Next.soon());
  }

  private Next restartFailed(ReconcilePass p, PipelinePlan plan, JobSummary failed) {
    String cause =
        jobs.job(failed.id()).flatMap(FlinkJobs.JobDetail::failureCause).orElse("the job failed");
    int failures = p.status.consecutiveFailures() + (failed.id().equals(p.status.jobId()) ? 1 : 0);
    if (failures >= Reconciler.MAX_FAILURES) {
      if (p.phase != Phase.FAILED) {
        p.event(
            "WARNING",
            "RetriesExhausted",
            "Failed " + failures + " times in a row; last cause: " + cause);
      }
      TableStatus s =
          p.status.toBuilder()
              .failures(failures)
              .failedAt(p.table.generation())
              .detail(cause)
              .job(null, null)
              .build()
              .with(TableStatus.JOB_RUNNING, false, Reason.RetriesExhausted, cause)
              .with(
                  TableStatus.READY,
                  false,
                  Reason.RetriesExhausted,
                  "Failed " + failures + " times; resume or change the table to try again");
      return p.save(Phase.FAILED, s, p.resync());
    }
    Duration backoff = Duration.ofMillis((long) (2000 * Math.pow(1.5, failures - 1)));
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
    String restore = jobs.latestRestorePath(failed.id()).orElse(p.status.savepointPath());
    return submit(p, plan, restore, p.status.consecutiveFailures());
  }

  private Next submit(ReconcilePass p, PipelinePlan plan, String restorePath, int failures) {
    // Intent first: the pipeline name is recorded before the job exists, and a later pass adopts
    // a job of that name instead of submitting another.
    p.save(
        p.phase == Phase.PENDING || p.phase == Phase.STOPPED ? Phase.CREATING : p.phase,
        p.status.toBuilder()
            .pipelineName(plan.pipelineName())
            .job(null, null)
            .failures(failures)
            .build(),
        null);
    faults.at("submit");
    String jobId =
        planner.inSession(
            p.table.name(),
            p.table.spec().definition().query(),
            plan.sourceStartOptions(clock.instant()),
            plan.sessionProperties(restorePath),
            session -> {
              for (String statement : plan.jobStatements()) {
                sql.execute(session, statement);
              }
              return sql.execute(session, plan.insert())
                  .jobId()
                  .orElseThrow(() -> new IllegalStateException("The INSERT returned no job id"));
            });
    p.event(
        "NORMAL",
        "JobSubmitted",
        "Submitted job "
            + jobId
            + " ("
            + plan.pipelineName()
            + ")"
            + (restorePath == null ? "" : " from " + restorePath));
    faults.at("submitted");
    TableStatus s =
        p.status.toBuilder()
            .job(jobId, null)
            .build()
            .with(
                TableStatus.JOB_RUNNING, false, Reason.JobSubmitted, "Job " + jobId + " submitted");
    return p.save(Phase.CREATING, s, new Next(Duration.ofMillis(100), false));
  }
}
