package dev.tributary.reconcile;

import dev.tributary.port.FlinkJobs;
import dev.tributary.port.Topics;
import dev.tributary.reconcile.ReconcileStore.FlowState;
import dev.tributary.reconcile.Reconciler.Next;
import dev.tributary.sql.ObjectName;
import dev.tributary.table.Phase;
import dev.tributary.table.TableStatus;
import dev.tributary.table.TableStatus.Reason;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What is particular to pipeline tables and their flows. The table owns the topic and subjects and
 * runs no job; each flow is a row of its own with its own job, checkpoints and lifecycle (the job
 * steps of a continuous materialized table), writing into the table's topic. The table's phase is
 * its flows', aggregated: one failed flow degrades the table and the others run on.
 */
final class PipelineSteps {

  private final ReconcileStore store;
  private final FlinkJobs jobs;
  private final Topics topics;

  PipelineSteps(ReconcileStore store, FlinkJobs jobs, Topics topics) {
    this.store = store;
    this.jobs = jobs;
    this.topics = topics;
  }

  /**
   * A flow's part of a full refresh: its job is cancelled, its state forgotten (savepoint,
   * checkpoint, source offsets committed under its group, an INSERT ONCE run, counts), and it waits
   * for the table to empty the topic; then it starts like a new flow (under a new job name, so that
   * nothing of the old job's is restored, IMPORT CHECKPOINT included).
   */
  Next resetFlow(ReconcilePass p) {
    long number = p.table.spec().fullRefresh();
    for (FlinkJobs.JobSummary job : p.liveJobs()) {
      p.step("cancel");
      jobs.cancel(job.id());
      p.event("NORMAL", "FlowReset", "Full refresh #" + number + ": cancelled job " + job.id());
      return Reconciler.Next.soon();
    }
    topics.deleteGroup(JobSubmission.group(p.table.id()));
    TableStatus s =
        p.status.toBuilder()
            .job(null, null)
            .savepoint(null, null)
            .savepointOf(null)
            .checkpoint(null)
            .restoredFrom(null)
            .evolution(null)
            .once(null)
            .quality(null)
            .skipped(null)
            .failures(0)
            .failedAt(0)
            .stopRequested(false)
            .fullRefreshed(number)
            .detail("Full refresh #" + number + ": state dropped; waiting for the table's topic")
            .build();
    p.event(
        "NORMAL",
        "FlowReset",
        "Full refresh #" + number + ": the flow's state is dropped; it starts from the beginning");
    return p.save(Phase.CREATING, s, new Next(TABLE_WAIT, false));
  }

  /**
   * The table's part of a full refresh: once every flow has stopped and dropped its state, the
   * topic is emptied; null when there is none to carry out (or it is done in this pass).
   */
  Next fullRefresh(ReconcilePass p) {
    long number = p.table.spec().fullRefresh();
    if (number <= p.status.fullRefreshed()) {
      return null;
    }
    List<FlowState> behind =
        store.flows(p.table.id()).stream()
            .filter(f -> !f.deletionRequested() && f.status().fullRefreshed() < number)
            .toList();
    if (!behind.isEmpty()) {
      String names = behind.stream().map(FlowState::name).collect(Collectors.joining(", "));
      p.save(
          p.phase == Phase.PENDING ? Phase.CREATING : Phase.ALTERING,
          p.status.toBuilder()
              .detail("Full refresh #" + number + ": waiting for flows " + names + " to stop")
              .build(),
          null);
      return new Next(TABLE_WAIT, false);
    }
    p.step("truncate");
    long removed = topics.truncate(p.table.topic());
    p.event(
        "NORMAL",
        "FullRefreshed",
        "Full refresh #"
            + number
            + ": "
            + removed
            + " records deleted from "
            + p.table.topic()
            + "; every flow starts from the beginning of its sources");
    p.status = p.status.toBuilder().fullRefreshed(number).build();
    return null;
  }

  /** A dropped pipeline table goes once its flows have gone (their jobs first). */
  Next awaitFlowsDropped(ReconcilePass p) {
    List<FlowState> flows = store.flows(p.table.id());
    if (flows.isEmpty()) {
      return null;
    }
    String names = flows.stream().map(FlowState::name).collect(Collectors.joining(", "));
    p.save(
        Phase.DELETING,
        p.status.toBuilder()
            .detail("Dropping flows " + names + " first")
            .build()
            .with(TableStatus.READY, false, Reason.Deleting, "Dropping flows " + names),
        null);
    return new Next(Duration.ofSeconds(1), false);
  }

  /** How long a flow waits between looks at a table that is not provisioned yet. */
  static final Duration TABLE_WAIT = Duration.ofSeconds(1);

  /**
   * The name of the flow's table once it has a topic and subjects (a flow starts only then); else
   * null, with the flow's status saying what it waits for. A flow whose table is gone (dropped
   * meanwhile) waits for its own deletion.
   */
  ObjectName readyTable(ReconcilePass p) {
    Optional<TableSnapshot> table = store.load(p.table.flowOf());
    boolean ready =
        table.isPresent()
            && table.get().status().fullRefreshed() >= p.table.spec().fullRefresh()
            && table.get().status().topic() != null
            && table.get().status().valueSubject() != null
            && isTrue(table.get().status(), TableStatus.TOPIC_READY);
    if (ready) {
      return table.get().name();
    }
    String message =
        table.isEmpty()
            ? "The flow's table is gone"
            : "Waiting for table " + table.get().name() + " to get its topic and subjects";
    p.save(
        p.phase == Phase.PENDING ? Phase.CREATING : p.phase,
        p.status.toBuilder()
            .detail(message)
            .build()
            .with(TableStatus.READY, false, Reason.WaitingForUpstream, message),
        null);
    return null;
  }

  /** The table's phase and Ready condition from its flows'. */
  Next aggregate(ReconcilePass p) {
    List<FlowState> flows =
        store.flows(p.table.id()).stream().filter(f -> !f.deletionRequested()).toList();
    if (flows.isEmpty()) {
      TableStatus s =
          p.status.toBuilder()
              .detail(null)
              .build()
              .with(
                  TableStatus.READY,
                  true,
                  Reason.Provisioning,
                  "Topic and subjects are ready; no flow writes into the table (CREATE FLOW adds"
                      + " one)");
      return p.save(Phase.RUNNING, s, p.resync());
    }
    long failed = flows.stream().filter(f -> f.phase() == Phase.FAILED).count();
    boolean troubled =
        flows.stream()
            .anyMatch(
                f ->
                    f.phase() == Phase.FAILED
                        || f.phase() == Phase.FAILING
                        || f.phase() == Phase.DEGRADED);
    boolean settling =
        flows.stream()
            .anyMatch(
                f ->
                    f.phase() == Phase.PENDING
                        || f.phase() == Phase.CREATING
                        || f.phase() == Phase.ALTERING
                        || f.phase() == Phase.STOPPING);
    boolean allStopped = flows.stream().allMatch(f -> f.phase() == Phase.STOPPED);
    Phase phase;
    if (failed == flows.size()) {
      phase = Phase.FAILED;
    } else if (troubled) {
      phase = Phase.DEGRADED;
    } else if (settling) {
      phase = p.phase == Phase.RUNNING ? Phase.ALTERING : Phase.CREATING;
    } else if (allStopped) {
      phase = Phase.STOPPED;
    } else {
      phase = Phase.RUNNING;
    }
    String summary =
        flows.stream()
            .map(
                f ->
                    f.name()
                        + " "
                        + f.phase()
                        + (f.phase() == Phase.FAILED && f.status().detail() != null
                            ? " (" + f.status().detail() + ")"
                            : ""))
            .collect(Collectors.joining("; "));
    boolean ready = phase == Phase.RUNNING;
    // Flows suspended on their own (ALTER FLOW ... SUSPEND) while the others run: named in detail.
    boolean someStopped = flows.stream().anyMatch(f -> f.phase() == Phase.STOPPED);
    if (phase != p.phase && (phase == Phase.DEGRADED || phase == Phase.FAILED)) {
      p.event("WARNING", "FlowFailed", "Flows: " + summary);
    }
    TableStatus s =
        p.status.toBuilder()
            .detail(ready && !someStopped ? null : "Flows: " + summary)
            .build()
            .with(
                TableStatus.READY,
                ready,
                ready ? Reason.JobRunning : troubled ? Reason.JobFailed : Reason.Provisioning,
                "Flows: " + summary);
    // Flows settle in seconds: look again soon while they do.
    return p.save(
        phase, s, settling || troubled ? new Next(Duration.ofSeconds(2), false) : p.resync());
  }

  private static boolean isTrue(TableStatus status, String condition) {
    TableStatus.Condition c = status.condition(condition);
    return c != null && "True".equals(c.status());
  }
}
