package dev.tributary.reconcile;

import dev.tributary.reconcile.ReconcileStore.FlowState;
import dev.tributary.reconcile.Reconciler.Next;
import dev.tributary.reconcile.TableStatus.Reason;
import dev.tributary.sql.ObjectName;
import dev.tributary.table.Phase;
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

  PipelineSteps(ReconcileStore store) {
    this.store = store;
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
    if (phase != p.phase && (phase == Phase.DEGRADED || phase == Phase.FAILED)) {
      p.event("WARNING", "FlowFailed", "Flows: " + summary);
    }
    TableStatus s =
        p.status.toBuilder()
            .detail(ready ? null : "Flows: " + summary)
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
