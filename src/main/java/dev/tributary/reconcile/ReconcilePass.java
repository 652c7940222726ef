package dev.tributary.reconcile;

import dev.tributary.plan.PipelinePlan;
import dev.tributary.port.FlinkJobs.JobSummary;
import dev.tributary.port.RemoteSystemException;
import dev.tributary.port.Topics;
import dev.tributary.reconcile.Reconciler.Next;
import dev.tributary.table.Phase;
import dev.tributary.table.TableStatus;
import dev.tributary.table.TableStatus.Reason;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pass over one table: the snapshot it started from, the status and phase as the pass has
 * changed them, and the writes. Status is written only when it differs from what is stored.
 */
final class ReconcilePass {

  private static final Logger log = LoggerFactory.getLogger(ReconcilePass.class);

  final TableSnapshot table;
  List<JobSummary> overview;
  TableStatus status;
  Phase phase;
  private final ReconcileStore store;
  private final Duration resync;
  private final Fence fence;
  private final Reconciler.Faults faults;
  private TableStatus savedStatus;
  private Phase savedPhase;
  private long savedGeneration;

  /**
   * The claim a pass works under: its token and how long to extend the lease by. {@code look}: no
   * claim at all, the sweep's pass over a settled table, which may read but not act ({@link
   * WouldAct}).
   */
  record Fence(UUID token, Duration lease, boolean look) {
    Fence(UUID token, Duration lease) {
      this(token, lease, false);
    }

    static final Fence NONE = new Fence(null, Duration.ZERO);
    static final Fence LOOK = new Fence(null, Duration.ZERO, true);
  }

  /**
   * A look-only pass came to a write or a side effect: the table needs a claimed pass. A claim
   * lost, as far as the steps are concerned: each of them already ends the pass on that, changing
   * nothing.
   */
  static final class WouldAct extends ReconcileStore.ClaimLostException {
    WouldAct(TableSnapshot table, String what) {
      super("A look at table " + table.id() + " would " + what);
    }
  }

  /** A look-only pass's status, when only the status moved; null when nothing did. */
  private TableStatus looked;

  TableStatus looked() {
    return looked;
  }

  /** Set by {@link #seen}: the pass runs its steps once more. */
  private boolean again;

  /**
   * A job of the table, as a look the pass took itself saw it (a job it stopped, seen ended): it
   * replaces the overview's entry, and the pass runs its steps once more with it ({@link
   * Reconciler}), so that what comes after the job's end is not left to the next pass.
   */
  void seen(JobSummary job) {
    List<JobSummary> now = new ArrayList<>(overview.size() + 1);
    overview.forEach(j -> now.add(j.id().equals(job.id()) ? job : j));
    if (!now.contains(job)) {
      now.add(job);
    }
    overview = now;
    again = true;
  }

  /** Whether the steps are to run once more ({@link #seen}); true once, then false. */
  boolean again() {
    boolean was = again;
    again = false;
    return was;
  }

  /** True once the pass came to a side effect ({@link #step}). */
  private boolean stepped;

  boolean stepped() {
    return stepped;
  }

  private void acting(String what) {
    if (fence.look()) {
      throw new WouldAct(table, what);
    }
  }

  ReconcilePass(
      TableSnapshot table,
      List<JobSummary> overview,
      ReconcileStore store,
      Duration resync,
      Fence fence,
      Reconciler.Faults faults) {
    this.table = table;
    this.overview = overview;
    this.store = store;
    this.resync = resync;
    this.fence = fence;
    this.faults = faults;
    this.status = table.status();
    this.phase = table.phase();
    this.savedStatus = status;
    this.savedPhase = phase;
    this.savedGeneration = table.observedGeneration();
  }

  /**
   * The table's topic as the batch's one describe of all its tables' topics saw it, taken once
   * (after that the pass may have changed it, so it asks again): empty when the batch did not look,
   * an empty inner value when the topic does not exist.
   */
  Optional<Optional<Topics.TopicState>> batchTopic(String name) {
    if (batchTopics == null || !batchTopics.containsKey(name)) {
      return Optional.empty();
    }
    return Optional.of(batchTopics.remove(name));
  }

  /** What the batch's describe saw, by topic name (null: the batch did not look). */
  private Map<String, Optional<Topics.TopicState>> batchTopics;

  ReconcilePass withBatchTopics(Map<String, Optional<Topics.TopicState>> seen) {
    this.batchTopics = seen == null ? null : new HashMap<>(seen);
    return this;
  }

  /** Nothing more to do until the next resync: the pass is done acting (see {@link #settle}). */
  Next resync() {
    resting = true;
    return Next.resync(resync);
  }

  /** Nothing more to do until {@code after} (a scheduled refresh due before the next resync). */
  Next restUntil(Duration after) {
    resting = true;
    return Next.resync(after);
  }

  /** A step said the pass is done acting ({@link #resync}, {@link #restUntil}). */
  private boolean resting;

  /**
   * The job's name: the table and a fingerprint of what shapes the job. Stable across suspend,
   * resume and changes that do not touch the job (topic options, comments, watermarks), so those
   * keep the job and its state; a new query or schema gives a new name, which is an evolution.
   */
  String pipelineName(PipelinePlan.Fingerprint fingerprint) {
    long refresh = table.spec().fullRefresh();
    // After a full refresh a flow's jobs are new ones: nothing of the old jobs' is restored.
    return "tributary-"
        + table.id()
        + "-"
        + fingerprint.value()
        + (refresh > 0 ? "-r" + refresh : "");
  }

  /**
   * The status of a table that stopped trying: {@code failures} in a row, FAILED at this generation
   * (a change or RESUME makes a fresh round of attempts), no job, the cause as detail.
   */
  TableStatus stoppedTrying(int failures, String cause, TableStatus.Reason reason, String ready) {
    return status.toBuilder()
        .failures(failures)
        .failedAt(table.generation())
        .detail(cause)
        .job(null, null)
        .build()
        .with(TableStatus.JOB_RUNNING, false, reason, cause)
        .with(TableStatus.READY, false, reason, ready);
  }

  /**
   * Provisioning under way beside the pass's next steps (a new topic being created, see {@link
   * Provisioning#ensureTopicAndSubjects}): it is awaited, and what it changes in the status
   * recorded, before the pass next writes its status. Null when nothing is under way.
   */
  private Supplier<UnaryOperator<TableStatus>> underway;

  /** The registrations of this pass's subjects; done or under way. */
  private Map<PipelinePlan.Subject, CompletableFuture<SubjectIds.Registration>> registering =
      Map.of();

  void underway(
      Supplier<UnaryOperator<TableStatus>> finish,
      Map<PipelinePlan.Subject, CompletableFuture<SubjectIds.Registration>> registering) {
    this.underway = finish;
    this.registering = Map.copyOf(registering);
  }

  boolean underway() {
    return underway != null;
  }

  Map<PipelinePlan.Subject, CompletableFuture<SubjectIds.Registration>> registering() {
    return registering;
  }

  /**
   * Awaits what is under way and applies it to the status; what it changes, for a status built
   * before it was done.
   */
  private UnaryOperator<TableStatus> finishUnderway() {
    Supplier<UnaryOperator<TableStatus>> finish = underway;
    if (finish == null) {
      return UnaryOperator.identity();
    }
    underway = null;
    UnaryOperator<TableStatus> done = finish.get();
    status = done.apply(status);
    return done;
  }

  /** Awaits provisioning under way, if any, and records it in the status: before a job writes. */
  void provisioned() {
    finishUnderway();
  }

  /**
   * After a failure elsewhere in the pass: what was under way is awaited and recorded in memory
   * when it succeeded; when it failed too, the next pass finds where it stopped.
   */
  void settleUnderway() {
    try {
      finishUnderway();
    } catch (RuntimeException e) {
      log.debug("Table {}: provisioning beside a failed pass failed too", table.id(), e);
    }
  }

  /**
   * Writes status only when it differs from what is stored. The observed generation is not advanced
   * here: a step's save may be the first of several towards the generation (see {@link #settle}).
   */
  Next save(Phase newPhase, TableStatus newStatus, Next next) {
    return write(newPhase, finishUnderway().apply(newStatus), next);
  }

  /**
   * Writes a job's intent (its pipeline name and fixed id) while a topic is still being created
   * beside the pass, without waiting for it: the intent names what the pass is about to do and does
   * not depend on the topic, which the submission awaits before its INSERT ({@link #provisioned})
   * and the next write records. Written before the job's session is opened, it is written while the
   * claim is fresh: a gateway slower than the lease (a heartbeat that cannot extend it) must not
   * keep every pass from recording it, or no pass would ever submit the job.
   */
  Next saveIntent(Phase newPhase, TableStatus newStatus, Next next) {
    return write(newPhase, newStatus, next);
  }

  /**
   * A save that ends the pass's steps, {@code next} being what they return: when it leaves the
   * table at rest ({@link #settle}), the observed generation goes into the same write, so that a
   * client waiting for it is answered after one write instead of two, and {@link #settle} has
   * nothing left to write. Not while the steps are to run once more ({@link #seen}).
   */
  Next saveLast(Phase newPhase, TableStatus newStatus, Next next) {
    TableStatus s = finishUnderway().apply(newStatus);
    if (again || savedGeneration == table.generation() || !atRest(newPhase, s, next)) {
      return write(newPhase, s, next);
    }
    warnOutsidePhaseTable(newPhase);
    writeObserved(newPhase, s);
    return next;
  }

  /**
   * Writes {@code newPhase} and {@code newStatus} at the table's generation: the world matches it,
   * so every condition holds as of it.
   */
  private void writeObserved(Phase newPhase, TableStatus newStatus) {
    acting("record its observed generation");
    TableStatus s = newStatus.observedAt(savedStatus, table.generation(), true);
    store.saveStatus(table.id(), fence.token(), newPhase, table.generation(), s);
    flowPhaseChanged(newPhase);
    savedGeneration = table.generation();
    savedPhase = phase = newPhase;
    savedStatus = status = s;
  }

  private void warnOutsidePhaseTable(Phase newPhase) {
    if (!Phases.allowed(savedPhase, newPhase)) {
      // A step that breaks the phase table (DESIGN.md) is a bug of ours: said, not hidden.
      log.warn(
          "{}: phase {} -> {} is not in the phase table of reconcile/DESIGN.md",
          table.name(),
          savedPhase,
          newPhase);
    }
  }

  private void flowPhaseChanged(Phase newPhase) {
    if (newPhase != savedPhase && table.flowOf() != null) {
      // A pipeline table's phase is its flows': it looks again now, not at its next resync.
      store.markDue(List.of(table.flowOf()));
    }
  }

  private Next write(Phase newPhase, TableStatus newStatus, Next next) {
    warnOutsidePhaseTable(newPhase);
    // A condition set or changed by this pass was evaluated against the table's generation.
    newStatus = newStatus.observedAt(savedStatus, table.generation(), false);
    if (newPhase == savedPhase && !newStatus.equals(savedStatus) && fence.look()) {
      // Only the status moved (a newer checkpoint): the sweep writes it with the others.
      looked = newStatus;
      savedStatus = newStatus;
    } else if (newPhase != savedPhase || !newStatus.equals(savedStatus)) {
      acting("change its phase");
      store.saveStatus(table.id(), fence.token(), newPhase, savedGeneration, newStatus);
      flowPhaseChanged(newPhase);
      savedPhase = newPhase;
      savedStatus = newStatus;
    }
    phase = newPhase;
    status = newStatus;
    return next;
  }

  /**
   * Ends the pass: {@code observedGeneration} becomes the table's generation only when the world
   * now matches it, that is when the pass finished acting on it and waits for nothing but the next
   * resync: the table at rest (RUNNING, STOPPED, FAILED, an INSERT ONCE flow SUCCEEDED, or a
   * declared table waiting for its flows in PENDING) with no evolution in its readiness window.
   * While an old job still runs, a new one starts, a savepoint is taken or a dependency is awaited,
   * it stays at the generation the world last matched. Clients wait on {@code observedGeneration ==
   * generation}.
   */
  boolean settle(Next next) {
    boolean atRest = atRest(phase, status, next);
    if (atRest && savedGeneration != table.generation()) {
      writeObserved(phase, status);
    }
    return atRest;
  }

  /** Whether {@code phase} and {@code status}, with {@code next} to come, are the table at rest. */
  private boolean atRest(Phase phase, TableStatus status, Next next) {
    return (phase == Phase.RUNNING
            || phase == Phase.STOPPED
            || phase == Phase.FAILED
            || phase == Phase.SUCCEEDED
            || phase == Phase.PENDING)
        && status.evolution() == null
        && resting
        && next != null
        && !next.failed()
        && !next.equals(Next.soon());
  }

  /** A definition that cannot run as written: FAILED until the spec changes. */
  Next failed(Reason reason, String message) {
    event("WARNING", reason.name(), message);
    TableStatus s =
        status.toBuilder()
            .invalid(table.definitionVersion())
            .detail(message)
            .build()
            .with(TableStatus.READY, false, reason, message);
    return save(Phase.FAILED, s, resync());
  }

  /**
   * A dependency is down or refused: record what is waiting on what, and try again with backoff.
   */
  Next waiting(RemoteSystemException e) {
    String message = "Waiting for " + e.system() + ": " + e.getMessage();
    TableStatus s =
        status.toBuilder()
            .detail(e.getMessage())
            .build()
            .with(
                TableStatus.READY,
                false,
                e.retryable() ? Reason.DependencyUnavailable : Reason.JobFailed,
                message);
    if (!s.equals(status)) {
      event("WARNING", e.retryable() ? "DependencyUnavailable" : "RemoteError", message);
    }
    Phase next = phase == Phase.RUNNING ? Phase.DEGRADED : phase;
    save(next, s, null);
    return new Next(Duration.ZERO, true);
  }

  /**
   * Before a side effect: the claim must still be held (its lease is extended), else the pass ends
   * here with {@link ReconcileStore.ClaimLostException} and another replica's pass decides.
   */
  void step(String name) {
    log.debug("Table {}: step {}", table.id(), name);
    acting("act: " + name);
    stepped = true;
    if (fence.token() != null && !store.confirm(table.id(), fence.token(), fence.lease())) {
      throw new ReconcileStore.ClaimLostException(table.id());
    }
    faults.at(name);
  }

  /**
   * Sets the {@link TableStatus#FRESH} condition for content as of {@code asOf} (nothing when not
   * known yet), with an event when the promise is first broken and when it is kept again.
   */
  void freshness(Instant asOf, Duration freshness, Duration slack, Instant now) {
    if (asOf == null) {
      return;
    }
    Duration lag = Duration.between(asOf, now);
    Duration allowed = freshness.multipliedBy(2).plus(slack);
    boolean fresh = lag.compareTo(allowed) <= 0;
    TableStatus.Condition was = status.condition(TableStatus.FRESH);
    boolean wasFresh = was == null || "True".equals(was.status());
    if (wasFresh && !fresh) {
      event(
          "WARNING",
          "FreshnessMissed",
          "The content is "
              + lag.toSeconds()
              + " s behind (as of "
              + asOf
              + "), more than the "
              + allowed.toSeconds()
              + " s the FRESHNESS allows");
    } else if (!wasFresh && fresh) {
      event("NORMAL", "FreshnessMet", "Fresh again: content as of " + asOf);
    }
    status =
        status.with(
            TableStatus.FRESH,
            fresh,
            fresh ? Reason.Refreshed : Reason.FreshnessMissed,
            (fresh ? "Fresh: content as of " : "Stale: content as of ")
                + asOf
                + (fresh ? ", within " : ", more than ")
                + allowed.toSeconds()
                + " s behind");
  }

  UUID token() {
    return fence.token();
  }

  void event(String type, String reason, String message) {
    acting("record event " + reason);
    store.event(table.id(), type, reason, message);
  }

  /** {@code work}'s writes as one (see {@link ReconcileStore#atomically}). */
  <T> T atomically(Supplier<T> work) {
    return store.atomically(work);
  }

  /** A refresh attempt ended (measured only). */
  void refreshEnded(String outcome, Duration took) {
    acting("record a refresh's end");
    store.refreshEnded(table.id(), outcome, took);
  }

  /** The table's live job: the one the status names if it is live, else any live job of ours. */
  Optional<JobSummary> liveJob() {
    List<JobSummary> live = liveJobs();
    return live.stream()
        .filter(j -> j.id().equals(status.jobId()))
        .findFirst()
        .or(() -> live.stream().findFirst());
  }

  /**
   * True when Flink could not run the job for want of task slots: a capacity problem of the
   * cluster, waited out with backoff, not a failure of the table.
   */
  static boolean waitingForSlots(String cause) {
    return cause != null
        && (cause.contains("NoResourceAvailableException")
            || cause.contains("Could not acquire the minimum required resources")
            || cause.contains("not fulfillable"));
  }

  /** Waiting for task slots: not counted as a failure; tried again after {@code after}. */
  Next waitingForSlots(String cause, Duration after) {
    String message = "Waiting for task slots: " + cause;
    TableStatus s =
        status.toBuilder()
            .detail(cause)
            .build()
            .with(TableStatus.READY, false, Reason.DependencyUnavailable, message);
    if (!s.equals(status)) {
      event("WARNING", "WaitingForTaskSlots", message);
    }
    save(phase == Phase.RUNNING ? Phase.DEGRADED : phase, s, null);
    return new Next(after, true);
  }

  /** Every job of this table that has not ended. More than one is drift. */
  List<JobSummary> liveJobs() {
    String prefix = "tributary-" + table.id() + "-";
    return overview.stream()
        .filter(j -> !j.state().terminal())
        .filter(j -> j.id().equals(status.jobId()) || j.name().startsWith(prefix))
        .filter(j -> !j.name().startsWith(RefreshSteps.prefix(table))) // a FULL refresh's job
        .toList();
  }

  /**
   * An operation failed (not the definition): say so, count it, and try again with backoff. The
   * table stays watched, and SUSPEND, RESUME and DROP keep working; after {@link
   * Reconciler#MAX_FAILURES} in a row it is FAILED, still retried at the backoff's pace.
   */
  Next operationFailed(Reason reason, String message) {
    if (waitingForSlots(message)) {
      return waitingForSlots(message, Duration.ZERO);
    }
    int failures = status.consecutiveFailures() + 1;
    event("WARNING", "OperationFailed", message + " (attempt " + failures + ")");
    Phase next =
        failures >= Reconciler.MAX_FAILURES
            ? Phase.FAILED
            : phase == Phase.RUNNING ? Phase.DEGRADED : phase;
    save(
        next,
        status.toBuilder()
            .failures(failures)
            .detail(message)
            .build()
            .with(TableStatus.READY, false, reason, message),
        null);
    return new Next(Duration.ZERO, true);
  }

  /**
   * The latest job of {@code pipelineName} (of any of the table's pipelines when null): the one the
   * status records if it is of that pipeline, else the newest of that name.
   */
  Optional<JobSummary> lastJob(String pipelineName) {
    String prefix = "tributary-" + table.id() + "-";
    Predicate<JobSummary> of =
        j -> pipelineName == null ? j.name().startsWith(prefix) : j.name().equals(pipelineName);
    if (status.jobId() != null) {
      Optional<JobSummary> recorded =
          overview.stream().filter(j -> j.id().equals(status.jobId())).filter(of).findFirst();
      if (recorded.isPresent()) {
        return recorded;
      }
    }
    return overview.stream()
        .filter(of)
        .max(Comparator.comparing(j -> j.startTime() == null ? Instant.EPOCH : j.startTime()));
  }
}
