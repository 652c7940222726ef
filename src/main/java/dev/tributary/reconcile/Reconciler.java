package dev.tributary.reconcile;

import dev.tributary.plan.PipelinePlan;
import dev.tributary.plan.QueryPlanner;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkJobs.JobState;
import dev.tributary.port.FlinkJobs.JobSummary;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.RefreshSchedules;
import dev.tributary.port.RemoteSystemException;
import dev.tributary.port.SchemaRegistry;
import dev.tributary.port.Topics;
import dev.tributary.sql.Clauses;
import dev.tributary.sql.Defaults;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.table.Phase;
import dev.tributary.table.RefreshLedger;
import dev.tributary.table.TableSpec;
import dev.tributary.table.TableStatus;
import dev.tributary.table.TableStatus.Reason;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * One level-triggered pass over one table: observe the world (the job from a shared overview, the
 * topic, the subjects), then take the next ensure-step towards the spec. Every handle is recorded
 * before the call that creates it, so a pass killed between any two steps is finished by the next
 * one without a second job, topic or subject. A pass never waits on Flink: it asks to be looked at
 * again soon.
 */
public class Reconciler {

  /**
   * Fault injection for tests: called between steps; throwing there stops the pass like a crash.
   */
  public interface Faults {
    void at(String step);

    Faults NONE = step -> {};
  }

  /**
   * When to look at the table again. {@code settled}: the pass found the table at rest and did
   * nothing to the world, so no time needs to bring it back; the sweep does (see {@link
   * ReconcileWorker#sweep}).
   */
  public record Next(Duration after, boolean failed, boolean settled) {
    public Next(Duration after, boolean failed) {
      this(after, failed, false);
    }

    static Next soon() {
      return new Next(Duration.ofMillis(200), false);
    }

    static Next resync(Duration resync) {
      return new Next(resync, false);
    }
  }

  static final int MAX_FAILURES = 5;

  /**
   * How long to wait before trying again after the {@code failures}-th failure in a row of a job or
   * a refresh: 2 s, growing by 1.5 each time (2, 3, 4.5, 6.75 s within {@link #MAX_FAILURES}).
   */
  static Duration failureBackoff(int failures) {
    return Duration.ofMillis((long) (2000 * Math.pow(1.5, Math.max(0, failures - 1))));
  }

  /** Savepoints kept per table (older ones are deleted when a new one is taken). */
  static final int SAVEPOINTS_KEPT = 3;

  static final Duration STABLE_AFTER = Duration.ofMinutes(1);

  private final ReconcileStore store;
  private final Settings settings;
  private final Provisioning provisioning;
  private final JobSteps jobSteps;
  private final Transitions transitions;
  private final RefreshSteps refreshSteps;
  private final PipelineSteps pipelineSteps;
  private final Faults faults;
  private final StartingJobs watching;

  /**
   * Where things go and how often to look. {@code registryUrl} is the Schema Registry as the Flink
   * jobs reach it (registry formats); {@code submissions}, how many jobs this replica submits to
   * one compute pool's gateway at once ({@link SubmissionSlots}).
   */
  public record Settings(
      String bootstrapServers,
      String savepointDir,
      Duration resync,
      Duration readinessWindow,
      String registryUrl,
      int submissions) {

    /** No limit on submissions beyond the pass threads (tools and tests). */
    public Settings(
        String bootstrapServers,
        String savepointDir,
        Duration resync,
        Duration readinessWindow,
        String registryUrl) {
      this(bootstrapServers, savepointDir, resync, readinessWindow, registryUrl, Integer.MAX_VALUE);
    }
  }

  public Reconciler(
      ReconcileStore store,
      Topics topics,
      SchemaRegistry registry,
      FlinkSql sql,
      FlinkJobs jobs,
      QueryPlanner planner,
      RefreshLedger ledger,
      RefreshSchedules schedules,
      Settings settings,
      Faults faults,
      Clock clock) {
    this.store = store;
    this.settings = settings;
    this.faults = faults;
    SubjectIds subjectIds = new SubjectIds(registry);
    this.provisioning = new Provisioning(planner, topics, subjectIds);
    this.watching = new StartingJobs(jobs);
    this.transitions = new Transitions(store, topics, registry, jobs, settings, clock, watching);
    this.jobSteps =
        new JobSteps(
            sql, jobs, topics, planner, transitions, subjectIds, settings, clock, watching);
    this.refreshSteps =
        new RefreshSteps(
            sql, jobs, topics, registry, subjectIds, planner, ledger, schedules, clock);
    this.pipelineSteps = new PipelineSteps(store, jobs, topics);
  }

  /** The passes watching a job start or stop, and their shared looks at its pool. */
  StartingJobs watching() {
    return watching;
  }

  /** Flink could not be observed: the table waits, and says so. */
  public Next unavailable(TableSnapshot table, RemoteSystemException e) {
    return unavailable(table, e, null, Duration.ZERO);
  }

  /** As {@link #unavailable(TableSnapshot, RemoteSystemException)}, under a claim. */
  public Next unavailable(
      TableSnapshot table, RemoteSystemException e, UUID token, Duration lease) {
    return new ReconcilePass(
            table,
            List.of(),
            store,
            settings.resync(),
            new ReconcilePass.Fence(token, lease),
            faults)
        .waiting(e);
  }

  /** A pass with the job overview taken once for the whole batch; unfenced (tools and tests). */
  public Next reconcile(TableSnapshot table, List<JobSummary> overview) {
    return reconcile(table, overview, null, Duration.ZERO);
  }

  /**
   * A pass under the claim {@code token}: every status write and every side effect first checks
   * that the claim is still held, and the pass ends (changing nothing more) when it is not.
   */
  public Next reconcile(
      TableSnapshot table, List<JobSummary> overview, UUID token, Duration lease) {
    return reconcile(table, overview, null, token, lease);
  }

  /**
   * A pass that takes the table's topic from {@code batchTopics}, what one describe of the whole
   * batch's topics saw (absent names do not exist), instead of describing it on its own.
   */
  public Next reconcile(
      TableSnapshot table,
      List<JobSummary> overview,
      Map<String, Optional<Topics.TopicState>> batchTopics,
      UUID token,
      Duration lease) {
    return pass(table, overview, batchTopics, new ReconcilePass.Fence(token, lease));
  }

  private Next pass(
      TableSnapshot table,
      List<JobSummary> overview,
      Map<String, Optional<Topics.TopicState>> batchTopics,
      ReconcilePass.Fence fence) {
    ReconcilePass pass =
        new ReconcilePass(table, overview, store, settings.resync(), fence, faults)
            .withBatchTopics(batchTopics);
    Next next = attempt(pass);
    if (pass.again()) {
      next = attempt(pass); // a job it stopped ended under it: once more, with what it saw
    }
    boolean atRest = pass.settle(next);
    return atRest && !pass.stepped() && next.after().compareTo(settings.resync()) >= 0
        ? new Next(next.after(), false, true)
        : next;
  }

  /**
   * The sweep's look at a settled table: the same pass as {@link #reconcile}, but one that may not
   * act: a write of its phase, an event or a side effect ends it, and the table must be claimed. A
   * step that only reads (the job overview, the topic as described, a checkpoint poll) stays a
   * read, and a status that only moved is handed back for the sweep to write.
   */
  public Look look(
      TableSnapshot table,
      List<JobSummary> overview,
      Map<String, Optional<Topics.TopicState>> batchTopics) {
    ReconcilePass pass =
        new ReconcilePass(
                table, overview, store, settings.resync(), ReconcilePass.Fence.LOOK, faults)
            .withBatchTopics(batchTopics);
    try {
      Next next = attempt(pass);
      boolean atRest = pass.settle(next);
      boolean settled = atRest && !pass.stepped() && next.after().compareTo(settings.resync()) >= 0;
      return settled ? new Look(false, pass.looked()) : Look.CLAIM;
    } catch (ReconcilePass.WouldAct e) {
      return Look.CLAIM;
    }
  }

  /**
   * What the sweep's look at a settled table found: {@code claim} when a claimed pass must act on
   * it; else the status to write when only the status moved (a newer checkpoint recorded, a
   * condition's message), null when nothing did.
   */
  public record Look(boolean claim, TableStatus status) {
    static final Look CLAIM = new Look(true, null);
  }

  /** How often a settled table is looked at by the sweep (a table due is looked at at once). */
  public Duration resync() {
    return settings.resync();
  }

  private Next attempt(ReconcilePass pass) {
    try {
      Next next = run(pass);
      if (pass.underway()) {
        pass.save(pass.phase, pass.status, null); // what it started beside it is recorded
      }
      return next;
    } catch (ReconcileStore.ClaimLostException e) {
      throw e; // another pass decides; it finds the topic and subjects where this one left them
    } catch (RuntimeException e) {
      pass.settleUnderway();
      return failed(pass, e);
    }
  }

  private static Next failed(ReconcilePass pass, RuntimeException e) {
    if (e instanceof Provisioning.ForeignTopicException foreign) {
      return Provisioning.conflict(pass, foreign);
    }
    if (e instanceof SchemaRegistry.IncompatibleSchemaException) {
      return pass.failed(Reason.SchemaIncompatible, e.getMessage());
    }
    if (e instanceof FlinkSql.StatementFailedException) {
      // The definition was validated; a refused submission is an operation that failed.
      return pass.operationFailed(Reason.JobFailed, "Flink refused the job: " + e.getMessage());
    }
    if (e instanceof IllegalArgumentException) {
      return pass.failed(Reason.InvalidQuery, e.getMessage());
    }
    if (e instanceof RemoteSystemException r) {
      return r.retryable()
          ? pass.waiting(r)
          : pass.operationFailed(Reason.OperationFailed, r.system() + ": " + r.getMessage());
    }
    throw e;
  }

  /**
   * The next step towards the spec: the first branch that applies, in the order of the pass table
   * of DESIGN.md. Each helper returns null when its branch does not apply.
   */
  private Next run(ReconcilePass p) {
    TableSpec.Kind kind = p.table.spec().kind();
    if (p.table.deletionRequested()) {
      return drop(p, kind);
    }
    if (kind == TableSpec.Kind.PIPELINE_TABLE && p.table.spec().definition() == null) {
      return declared(p);
    }
    // A flow writes as its table: into its topic, with the schemas registered under its name.
    ObjectName writesAs = p.table.name();
    if (kind == TableSpec.Kind.FLOW && p.table.spec().fullRefresh() > p.status.fullRefreshed()) {
      return pipelineSteps.resetFlow(p);
    }
    if (kind == TableSpec.Kind.FLOW) {
      writesAs = pipelineSteps.readyTable(p);
      if (writesAs == null) {
        return new Next(PipelineSteps.TABLE_WAIT, false);
      }
    }
    MaterializedTableDefinition effective = Defaults.effective(p.table.spec().definition());
    boolean full = effective.refreshMode() == Clauses.RefreshMode.FULL;
    Optional<JobSummary> live = p.liveJob();
    Next next = leaveFull(p, full);
    if (next == null) {
      next = stopIfAsked(p, live, full);
    }
    if (next == null) {
      next = validate(p, effective);
    }
    if (next != null) {
      return next;
    }
    PipelinePlan plan =
        new PipelinePlan(
            writesAs,
            p.table.topic(),
            p.pipelineName(PipelinePlan.fingerprint(effective, p.status.schema())),
            effective,
            p.status.schema(),
            settings.bootstrapServers(),
            settings.registryUrl());
    next = restartIfChanged(p, live, plan);
    if (next != null) {
      return next;
    }
    if (live.isEmpty()) {
      transitions.recoverSavepointPath(p);
    }
    return provisionAndRun(p, kind, full, plan, live);
  }

  /** Deletion requested: a FULL table's refresh and a pipeline table's flows go first. */
  private Next drop(ReconcilePass p, TableSpec.Kind kind) {
    if (p.status.refreshScheduled() && refreshSteps.stop(p, "the table is being dropped")) {
      return Next.soon(); // its refresh job is being cancelled
    }
    if (kind == TableSpec.Kind.PIPELINE_TABLE) {
      Next waiting = pipelineSteps.awaitFlowsDropped(p);
      if (waiting != null) {
        return waiting;
      }
    }
    // A flow's status names no topic or subjects: only its job and state go.
    return transitions.delete(p);
  }

  /** A pipeline table with no flow yet: PENDING until its first flow gives it columns. */
  private Next declared(ReconcilePass p) {
    boolean declared = p.table.spec().pipeline().flow() == null;
    return p.save(
        Phase.PENDING,
        p.status.with(
            TableStatus.READY,
            false,
            Reason.Provisioning,
            declared
                ? "Declared: the table gets its columns, topic and subjects with its first flow"
                    + " (CREATE FLOW ... INTO "
                    + p.table.name().name()
                    + ")"
                : "Stored by an earlier version that did not run flows: drop the table and"
                    + " create it again"),
        p.resync());
  }

  /**
   * Switched to CONTINUOUS: the schedule goes first (a running refresh is cancelled; its upserts
   * are rewritten by the continuous job), the topic and its content stay.
   */
  private Next leaveFull(ReconcilePass p, boolean full) {
    if (full || !p.status.refreshScheduled()) {
      return null;
    }
    if (refreshSteps.stop(p, "REFRESH_MODE is now CONTINUOUS")) {
      return Next.soon();
    }
    p.event(
        "NORMAL",
        "RefreshModeChanged",
        "Now CONTINUOUS ("
            + Defaults.refreshModeReason(p.table.spec().definition())
            + "): the refresh schedule is removed; a continuous job keeps the topic fresh");
    return null;
  }

  /** Duplicate jobs, a switch to FULL and a suspend all stop jobs, with a savepoint. */
  private Next stopIfAsked(ReconcilePass p, Optional<JobSummary> live, boolean full) {
    if (p.liveJobs().size() > 1) {
      return transitions.stopDuplicates(p, live.orElseThrow());
    }
    if (full && live.isPresent()) {
      // Switched to FULL: the continuous job stops with a savepoint; the topic stays.
      return transitions.suspend(p, live);
    }
    if (p.table.spec().stopped() && !full) {
      return transitions.suspend(p, live);
    }
    return null;
  }

  /** An invalid definition waits for the next one; a new one is validated with Flink first. */
  private Next validate(ReconcilePass p, MaterializedTableDefinition effective) {
    if (p.status.invalidVersion() == p.table.definitionVersion()) {
      return p.resync(); // only a new definition clears it; a live job of the last one runs on
    }
    if (p.status.validatedVersion() != p.table.definitionVersion()) {
      return provisioning.validate(p, effective);
    }
    return null;
  }

  /**
   * A live job that no longer matches the plan: another fingerprint evolves it; a new checkpoint
   * interval, bucket count or compute pool restarts it from a savepoint.
   */
  private Next restartIfChanged(ReconcilePass p, Optional<JobSummary> live, PipelinePlan plan) {
    if (live.isEmpty()) {
      return null;
    }
    if (!live.get().name().equals(plan.pipelineName())) {
      return transitions.evolve(p, live.get());
    }
    String runsOn =
        p.status.computePool() == null ? FlinkJobs.DEFAULT_POOL : p.status.computePool();
    if (!runsOn.equals(plan.pool())) {
      if (live.get().state() == JobState.CANCELLING) {
        // A move rolled back cancels the job on the new pool: it ends before the table goes on.
        return Next.soon();
      }
      // The same job, moved: stopped with a savepoint here, submitted from it on the new pool.
      return transitions.move(p, live.get(), runsOn, plan.pool());
    }
    long interval = plan.checkpointInterval().toMillis();
    if (p.status.checkpointIntervalMs() > 0 && p.status.checkpointIntervalMs() != interval) {
      return transitions.restart(
          p,
          live.get(),
          "checkpoint interval " + p.status.checkpointIntervalMs() + " ms -> " + interval + " ms");
    }
    String mode = plan.effective().options().getOrDefault("error-handling.mode", "");
    String running = p.status.errorHandling();
    if (running != null && !running.equals(mode)) {
      // How its sources read a bad record: the same operators, so the state is kept.
      return transitions.restart(
          p,
          live.get(),
          "'error-handling.mode' "
              + (running.isEmpty() ? "(none)" : running)
              + " -> "
              + (mode.isEmpty() ? "(none)" : mode));
    }
    int partitions = plan.topic().partitions();
    if (p.status.partitions() != null && p.status.partitions() != partitions) {
      // The (empty) topic is created again with the new bucket count while no job writes to it.
      return transitions.restart(
          p, live.get(), "topic partitions " + p.status.partitions() + " -> " + partitions);
    }
    return null;
  }

  /** Topic and subjects (not a flow's: its table owns them), then what runs the table. */
  private Next provisionAndRun(
      ReconcilePass p,
      TableSpec.Kind kind,
      boolean full,
      PipelinePlan plan,
      Optional<JobSummary> live) {
    if (kind != TableSpec.Kind.FLOW) {
      Next provisioned = provisioning.ensureTopicAndSubjects(p, plan);
      if (provisioned != null) {
        return provisioned;
      }
    }
    if (kind == TableSpec.Kind.PIPELINE_TABLE || full || live.isPresent()) {
      // Only a continuous job's submission is prepared beside a new topic (JobSubmission).
      p.provisioned();
    }
    if (kind == TableSpec.Kind.PIPELINE_TABLE) {
      Next refreshing = pipelineSteps.fullRefresh(p);
      if (refreshing != null) {
        return refreshing;
      }
      return pipelineSteps.aggregate(p); // its flows run the jobs
    }
    if (full) {
      return refreshSteps.run(p, plan);
    }
    if (live.isEmpty()) {
      provisioning.ensureDeadLetters(p, plan); // before a job writes to them
    }
    return jobSteps.ensureJob(p, plan, live);
  }
}
