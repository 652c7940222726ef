package dev.tributary.reconcile;

import dev.tributary.reconcile.Reconciler.Next;
import dev.tributary.reconcile.TableStatus.Reason;
import dev.tributary.reconcile.port.FlinkJobs;
import dev.tributary.reconcile.port.FlinkJobs.JobSummary;
import dev.tributary.reconcile.port.FlinkJobs.SavepointStatus;
import dev.tributary.reconcile.port.SchemaRegistry;
import dev.tributary.reconcile.port.Topics;
import dev.tributary.table.Phase;
import java.util.Optional;

/** Leaving the running state: suspend with a savepoint, evolve to a new definition, drop. */
final class Transitions {

  private final ReconcileStore store;
  private final Topics topics;
  private final SchemaRegistry registry;
  private final FlinkJobs jobs;
  private final Reconciler.Settings settings;
  private final Reconciler.Faults faults;

  Transitions(
      ReconcileStore store,
      Topics topics,
      SchemaRegistry registry,
      FlinkJobs jobs,
      Reconciler.Settings settings,
      Reconciler.Faults faults) {
    this.store = store;
    this.topics = topics;
    this.registry = registry;
    this.jobs = jobs;
    this.settings = settings;
    this.faults = faults;
  }

  Next suspend(ReconcilePass p, Optional<JobSummary> live) {
    if (live.isPresent()) {
      JobSummary job = live.get();
      if (p.status.savepointTriggerId() == null || !job.id().equals(p.status.jobId())) {
        p.save(
            Phase.STOPPING,
            p.status.toBuilder()
                .job(job.id(), job.startTime())
                .stopRequested(true)
                .savepoint(null, null)
                .build()
                .with(TableStatus.READY, false, Reason.Suspending, "Stopping with a savepoint"),
            null);
        faults.at("stop");
        String trigger =
            jobs.triggerStopWithSavepoint(job.id(), settings.savepointDir() + "/" + p.table.id());
        p.event("NORMAL", "Suspending", "Stopping job " + job.id() + " with a savepoint");
        return p.save(
            Phase.STOPPING, p.status.toBuilder().savepoint(trigger, null).build(), Next.soon());
      }
      SavepointStatus progress = jobs.savepointStatus(job.id(), p.status.savepointTriggerId());
      if (progress.phase() == SavepointStatus.Phase.FAILED) {
        p.event(
            "WARNING",
            "SuspendFailed",
            "Savepoint failed: "
                + progress.failureCause().orElse("unknown cause")
                + "; trying again");
        return p.save(
            Phase.STOPPING,
            p.status.toBuilder()
                .savepoint(null, null)
                .detail(progress.failureCause().orElse(null))
                .build(),
            Next.soon());
      }
      if (progress.phase() == SavepointStatus.Phase.COMPLETED) {
        p.status =
            p.status.toBuilder()
                .savepoint(p.status.savepointTriggerId(), progress.location().orElseThrow())
                .build();
      }
      return p.save(Phase.STOPPING, p.status, Next.soon());
    }
    if (p.status.stopRequested() && p.status.savepointPath() == null && p.status.jobId() != null) {
      // The job ended, but the savepoint's location was not recorded (or the pass died before it
      // was).
      String path =
          p.status.savepointTriggerId() == null
              ? null
              : jobs.savepointStatus(p.status.jobId(), p.status.savepointTriggerId())
                  .location()
                  .orElse(null);
      if (path == null) {
        path = jobs.latestRestorePath(p.status.jobId()).orElse(null);
      }
      p.status = p.status.toBuilder().savepoint(p.status.savepointTriggerId(), path).build();
    }
    if (p.phase != Phase.STOPPED) {
      p.event(
          "NORMAL",
          "Suspended",
          p.status.savepointPath() == null
              ? "Suspended (no job was running)"
              : "Suspended at savepoint " + p.status.savepointPath());
    }
    TableStatus s =
        p.status
            .with(TableStatus.JOB_RUNNING, false, Reason.Suspended, "Suspended")
            .with(
                TableStatus.READY,
                false,
                Reason.Suspended,
                p.status.savepointPath() == null
                    ? "Suspended"
                    : "Suspended at " + p.status.savepointPath());
    return p.save(Phase.STOPPED, s, p.resync());
  }

  Next evolve(ReconcilePass p, JobSummary old) {
    // Evolution discards state: the old job is cancelled, and the new one starts per START_MODE.
    p.save(
        Phase.ALTERING,
        p.status.with(
            TableStatus.READY,
            false,
            Reason.Evolving,
            "Replacing job " + old.id() + " with the new definition"),
        null);
    faults.at("cancel-old");
    jobs.cancel(old.id());
    p.event("NORMAL", "Evolving", "Cancelled job " + old.id() + " of the previous definition");
    return p.save(
        Phase.ALTERING,
        p.status.toBuilder()
            .job(null, null)
            .savepoint(null, null)
            .stopRequested(false)
            .failures(0)
            .build(),
        Next.soon());
  }

  Next delete(ReconcilePass p) {
    p.save(
        Phase.DELETING, p.status.with(TableStatus.READY, false, Reason.Deleting, "Dropping"), null);
    for (JobSummary job : p.overview) {
      boolean ours =
          job.id().equals(p.status.jobId())
              || job.name().startsWith("tributary-" + p.table.id() + "-");
      if (ours && !job.state().terminal()) {
        faults.at("cancel");
        jobs.cancel(job.id());
        p.event("NORMAL", "Deleting", "Cancelled job " + job.id());
        return Next.soon();
      }
    }
    faults.at("delete-topic");
    if (p.status.topic() != null) {
      topics.delete(p.status.topic());
    }
    faults.at("delete-subjects");
    for (String subject : new String[] {p.status.keySubject(), p.status.valueSubject()}) {
      if (subject != null) {
        registry.deleteSubject(subject, true);
      }
    }
    p.event("NORMAL", "Deleted", "Job, topic and subjects removed; definition dropped");
    store.delete(p.table.id());
    return null;
  }
}
