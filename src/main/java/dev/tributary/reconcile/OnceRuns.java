package dev.tributary.reconcile;

import dev.tributary.plan.QueryPlanner;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkJobs.JobSummary;
import dev.tributary.port.Topics;
import dev.tributary.reconcile.Reconciler.Next;
import dev.tributary.sql.Statement;
import dev.tributary.table.Phase;
import dev.tributary.table.TableStatus;
import dev.tributary.table.TableStatus.Reason;
import java.time.Clock;
import java.util.Map;
import java.util.TreeMap;

/**
 * INSERT ONCE flows: one bounded run. The end offsets of its sources are recorded before its first
 * submission and read up to on every attempt, so a restart reads the same rows; its outcome is kept
 * in the status, which outlives JobManager restarts, so a finished flow is never submitted again.
 */
final class OnceRuns {

  private final FlinkJobs jobs;
  private final Topics topics;
  private final QueryPlanner planner;
  private final Clock clock;

  OnceRuns(FlinkJobs jobs, Topics topics, QueryPlanner planner, Clock clock) {
    this.jobs = jobs;
    this.topics = topics;
    this.planner = planner;
    this.clock = clock;
  }

  /** An INSERT ONCE flow: one bounded run, recorded when it is done. */
  static boolean once(ReconcilePass p) {
    return p.table.spec().flowStatement() != null && p.table.spec().flowStatement().once();
  }

  Next finished(ReconcilePass p, JobSummary job) {
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
    return done(p);
  }

  Next done(ReconcilePass p) {
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
  Map<String, Map<Integer, Long>> bounds(ReconcilePass p) {
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
}
