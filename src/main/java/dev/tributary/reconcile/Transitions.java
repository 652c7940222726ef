package dev.tributary.reconcile;

import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkJobs.JobSummary;
import dev.tributary.port.FlinkJobs.SavepointStatus;
import dev.tributary.port.RemoteSystemException;
import dev.tributary.port.SchemaRegistry;
import dev.tributary.port.Topics;
import dev.tributary.reconcile.Reconciler.Next;
import dev.tributary.sql.TableOptions;
import dev.tributary.table.Phase;
import dev.tributary.table.TableStatus;
import dev.tributary.table.TableStatus.Evolution;
import dev.tributary.table.TableStatus.Reason;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Leaving the running state: suspend, evolve to a new definition and restart with new settings all
 * stop the job with a savepoint (never a cancel, so no committed row is lost and none is written
 * twice); an evolution that does not come up is rolled back; drop removes everything.
 */
final class Transitions {

  private final ReconcileStore store;
  private final Topics topics;
  private final SchemaRegistry registry;
  private final FlinkJobs jobs;
  private final Reconciler.Settings settings;
  private final Clock clock;
  private final StartingJobs watching;

  Transitions(
      ReconcileStore store,
      Topics topics,
      SchemaRegistry registry,
      FlinkJobs jobs,
      Reconciler.Settings settings,
      Clock clock,
      StartingJobs watching) {
    this.store = store;
    this.topics = topics;
    this.registry = registry;
    this.jobs = jobs;
    this.settings = settings;
    this.clock = clock;
    this.watching = watching;
  }

  Next suspend(ReconcilePass p, Optional<JobSummary> live) {
    if (live.isPresent()) {
      return stopWithSavepoint(p, live.get(), Phase.STOPPING, Reason.Suspending);
    }
    recoverSavepointPath(p);
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

  /**
   * A job of another definition is running: stop it with a savepoint, and remember what to roll
   * back to. The new job starts once the old one has stopped.
   */
  Next evolve(ReconcilePass p, JobSummary old) {
    if (p.status.evolution() == null || !old.name().equals(p.status.evolution().fromPipeline())) {
      p.event(
          "NORMAL",
          "Evolving",
          "Stopping job "
              + old.id()
              + " of version "
              + p.status.jobVersion()
              + " with a savepoint");
      p.status =
          p.status.toBuilder()
              .evolution(
                  new Evolution(p.status.jobVersion(), old.name(), null, clock.instant(), null))
              .build();
    }
    return stopWithSavepoint(p, old, Phase.ALTERING, Reason.Evolving);
  }

  /**
   * The same job, moved to another compute pool: stop it with a savepoint, and remember the pool
   * and version to go back to. The job is then submitted on the new pool from that savepoint; if
   * the new pool refuses it, or it fails or does not run before the readiness window ends, the
   * table rolls back to the version naming the old pool (see {@link #rollBack}).
   */
  Next move(ReconcilePass p, JobSummary job, String fromPool, String toPool) {
    if (p.status.evolution() == null || !job.name().equals(p.status.evolution().fromPipeline())) {
      p.event(
          "NORMAL",
          "Moving",
          "Moving job "
              + job.id()
              + " from compute pool "
              + fromPool
              + " to "
              + toPool
              + ": stopping it with a savepoint");
      p.status =
          p.status.toBuilder()
              .evolution(
                  new Evolution(
                      p.status.jobVersion(), job.name(), null, clock.instant(), null, fromPool))
              .build();
    }
    return stopWithSavepoint(p, job, Phase.ALTERING, Reason.Restarting);
  }

  /**
   * Same job shape, new settings (checkpoint interval, topic partitions): stop with a savepoint;
   * the job is then submitted again and restores it.
   */
  Next restart(ReconcilePass p, JobSummary job, String why) {
    if (p.status.savepointTriggerId() == null) {
      p.event("NORMAL", "Restarting", "Restarting job " + job.id() + " from a savepoint: " + why);
    }
    return stopWithSavepoint(p, job, Phase.ALTERING, Reason.Restarting);
  }

  /**
   * How often a pass asks for a stop's savepoint while it is young: a suspend, an evolution or a
   * restart waits for it, and a small job's savepoint takes a few hundred milliseconds here, which
   * {@link Next#soon()}'s 200 ms rounded up to two or three of its polls.
   */
  static final Duration STOPPING_POLL = Duration.ofMillis(50);

  /** For how long after its trigger a savepoint is asked for every {@link #STOPPING_POLL}. */
  static final Duration STOPPING = Duration.ofSeconds(2);

  /**
   * When this replica sent each trigger of the last {@link #STOPPING} (by trigger id), to poll a
   * long savepoint slower. Older ones are dropped at each trigger; a trigger another replica sent,
   * or one from before a restart, is polled at {@link Next#soon()}.
   */
  private final Map<String, Instant> triggered = new ConcurrentHashMap<>();

  private Next whileStopping(String trigger) {
    Instant at = triggered.get(trigger);
    return at != null && at.plus(STOPPING).isAfter(clock.instant())
        ? new Next(STOPPING_POLL, false)
        : Next.soon();
  }

  /**
   * Triggers the stop-with-savepoint or polls it. The trigger id is ours, recorded before the
   * trigger is sent: a pass that dies after recording it sends the same id again, and the
   * JobManager never takes two savepoints for one stop. Returns when the savepoint is taken; the
   * job then finishes, and the next pass finds it no longer live.
   */
  private Next stopWithSavepoint(ReconcilePass p, JobSummary job, Phase phase, Reason reason) {
    String directory = settings.savepointDir() + "/" + p.table.id();
    if (p.status.savepointTriggerId() == null || !job.id().equals(p.status.jobId())) {
      String trigger = UUID.randomUUID().toString().replace("-", "");
      p.save(
          phase,
          p.status.toBuilder()
              .job(job.id(), job.startTime())
              .stopRequested(true)
              .savepoint(trigger, null)
              .build()
              .with(
                  TableStatus.READY,
                  false,
                  reason,
                  "Stopping job " + job.id() + " with a savepoint"),
          null);
      p.step("stop");
      Instant now = clock.instant();
      triggered.values().removeIf(at -> !at.plus(STOPPING).isAfter(now));
      triggered.put(trigger, now);
      jobs.triggerStopWithSavepoint(job.id(), directory, trigger);
      SavepointStatus watched = watch(job, trigger);
      if (watched == null) {
        return p.save(phase, p.status, whileStopping(trigger));
      }
      return stopped(p, job, phase, watched, directory);
    }
    SavepointStatus progress;
    try {
      progress = jobs.savepointStatus(job.id(), p.status.savepointTriggerId());
    } catch (RemoteSystemException e) {
      if (e.retryable()) {
        throw e;
      }
      // The JobManager does not know the trigger: the pass that recorded it died before sending
      // it, or the JobManager restarted or expired it. The job still runs (one that ended left its
      // savepoint in its checkpoints, see recoverSavepointPath), so send the same trigger again.
      p.event(
          "WARNING",
          "SavepointUnknown",
          "Savepoint trigger " + p.status.savepointTriggerId() + " unknown; sending it again");
      p.step("stop");
      jobs.triggerStopWithSavepoint(job.id(), directory, p.status.savepointTriggerId());
      return Next.soon();
    }
    if (progress.phase() == SavepointStatus.Phase.IN_PROGRESS) {
      return p.save(phase, p.status, whileStopping(p.status.savepointTriggerId()));
    }
    return stopped(p, job, phase, progress, directory);
  }

  /** For how long the pass that sends a stop polls its savepoint itself ({@link #watch}). */
  static final Duration STOP_WATCH = Duration.ofSeconds(1);

  /** How often that pass asks for the savepoint. */
  static final Duration STOP_WATCH_POLL = Duration.ofMillis(25);

  /**
   * The savepoint of the stop this pass has just sent, once it is no longer in progress, polled
   * every {@link #STOP_WATCH_POLL} for up to {@link #STOP_WATCH}; null when it is not done by then,
   * when the JobManager does not answer, or when {@link StartingJobs#WATCHERS} passes watch already
   * (a batch of stops is left to the later passes' polls). A small job's savepoint takes a few
   * hundred milliseconds here: left to later passes, each poll cost a release, a claim and the
   * worker's look at Flink and Kafka, 70-80 ms apart where this pass asks every 25 ms.
   */
  private SavepointStatus watch(JobSummary job, String trigger) {
    if (!watching.watch()) {
      return null;
    }
    long deadline = System.nanoTime() + STOP_WATCH.toNanos();
    try {
      while (System.nanoTime() + STOP_WATCH_POLL.toNanos() <= deadline) {
        Thread.sleep(STOP_WATCH_POLL.toMillis());
        SavepointStatus progress = jobs.savepointStatus(job.id(), trigger);
        if (progress.phase() != SavepointStatus.Phase.IN_PROGRESS) {
          return progress;
        }
      }
      return null;
    } catch (RemoteSystemException e) {
      return null; // the next pass asks, and handles what it answers
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } finally {
      watching.done();
    }
  }

  /** The stop's savepoint is taken or failed: record it, and go on at once if the job ended. */
  private Next stopped(
      ReconcilePass p, JobSummary job, Phase phase, SavepointStatus progress, String directory) {
    if (progress.phase() == SavepointStatus.Phase.FAILED) {
      String cause = progress.failureCause().orElse("unknown cause");
      p.event("WARNING", "SavepointFailed", "Savepoint of job " + job.id() + " failed: " + cause);
      // The job keeps running; a new trigger comes after the backoff.
      p.save(phase, p.status.toBuilder().savepoint(null, null).detail(cause).build(), null);
      return new Next(Duration.ZERO, true);
    }
    String path = progress.location().orElseThrow();
    if (path.equals(p.status.savepointPath())) {
      // Taken and recorded by an earlier pass: the job is ending.
      Next next = p.save(phase, p.status, whileStopping(p.status.savepointTriggerId()));
      ended(p, job);
      return next;
    }
    TableStatus.Builder s =
        p.status.toBuilder().savepoint(p.status.savepointTriggerId(), path).savepointOf(job.name());
    Evolution evolution = p.status.evolution();
    if (evolution != null && job.name().equals(evolution.fromPipeline())) {
      s.evolution(evolution.withSavepoint(path));
    }
    p.event("NORMAL", "SavepointTaken", "Job " + job.id() + " stopped at savepoint " + path);
    // The newest few stay (the one just taken and the one an evolution may roll back to).
    Set<String> protect = new HashSet<>(Set.of(path));
    if (evolution != null && evolution.savepointPath() != null) {
      protect.add(evolution.savepointPath());
    }
    try {
      p.step("prune-savepoints");
      jobs.pruneSavepoints(directory, Reconciler.SAVEPOINTS_KEPT, protect);
    } catch (RuntimeException e) {
      if (e instanceof ReconcileStore.ClaimLostException lost) {
        throw lost;
      }
      p.event("WARNING", "SavepointsNotPruned", "Old savepoints were not deleted: " + e);
    }
    p.status = s.build();
    Next next = p.save(phase, p.status, whileStopping(p.status.savepointTriggerId()));
    ended(p, job);
    return next;
  }

  /**
   * The job ends right after its savepoint (Flink answers the stop once the job has finished): a
   * look at its pool, and if the job is seen ended there, the pass runs its steps again with that
   * ({@link ReconcilePass#seen}) and submits what comes next, or records the suspend, itself. Left
   * to the next pass, that cost a release, a claim and the worker's look: 60-70 ms between the
   * savepoint and the new job's session in {@code EvolutionBench}. A job not seen ended, or a
   * JobManager that does not answer, is left to the next pass.
   */
  private void ended(ReconcilePass p, JobSummary job) {
    String pool = p.status.computePool() == null ? FlinkJobs.DEFAULT_POOL : p.status.computePool();
    try {
      watching.overview(pool, System.nanoTime()).stream()
          .filter(j -> j.id().equals(job.id()) && j.state().terminal())
          .findFirst()
          .ifPresent(p::seen);
    } catch (RemoteSystemException e) {
      // The next pass looks.
    }
  }

  /**
   * More than one live job for the table is drift (a submission that raced, or a job started by
   * hand under our name): keep the one the status names, cancel the others.
   */
  Next stopDuplicates(ReconcilePass p, JobSummary keep) {
    for (JobSummary job : p.liveJobs()) {
      if (!job.id().equals(keep.id())) {
        p.step("cancel-duplicate");
        jobs.cancel(job.id());
        p.event(
            "WARNING",
            "DuplicateJob",
            "Cancelled job " + job.id() + " (" + job.name() + "): the table runs job " + keep.id());
      }
    }
    return Next.soon();
  }

  /** The job ended after a stop, but the pass died before it recorded where the savepoint is. */
  void recoverSavepointPath(ReconcilePass p) {
    if (!p.status.stopRequested() || p.status.savepointPath() != null || p.status.jobId() == null) {
      return;
    }
    String path = null;
    if (p.status.savepointTriggerId() != null) {
      try {
        path =
            jobs.savepointStatus(p.status.jobId(), p.status.savepointTriggerId())
                .location()
                .orElse(null);
      } catch (RemoteSystemException e) {
        if (e.retryable()) {
          throw e;
        }
        // The trigger is forgotten: the job's checkpoint history still names its savepoint.
      }
    }
    if (path == null) {
      path = jobs.latestRestorePath(p.status.jobId()).orElse(null);
    }
    String pipeline = p.lastJob(null).map(JobSummary::name).orElse(p.status.pipelineName());
    TableStatus.Builder s =
        p.status.toBuilder().savepoint(p.status.savepointTriggerId(), path).savepointOf(pipeline);
    Evolution evolution = p.status.evolution();
    if (evolution != null && pipeline.equals(evolution.fromPipeline())) {
      s.evolution(evolution.withSavepoint(path));
    }
    p.status = s.build();
  }

  /**
   * The new definition did not come up: cancel its job, put the previous definition back (the
   * failed version stays in the history, marked with the cause) and restart the previous job from
   * the savepoint it stopped at.
   */
  Next rollBack(ReconcilePass p, String cause) {
    Evolution evolution = p.status.evolution();
    for (JobSummary job : p.overview) {
      // A move's new job has the old one's name: the old one ended at its savepoint, so every
      // live job of the table is on the new pool.
      if (job.name().startsWith("tributary-" + p.table.id() + "-")
          && (evolution.move() || !job.name().equals(evolution.fromPipeline()))
          && !job.state().terminal()) {
        p.step("cancel-new");
        jobs.cancel(job.id());
      }
    }
    String message =
        (evolution.move()
                ? "The move to compute pool "
                    + (p.status.computePool() == null
                        ? TableOptions.DEFAULT_POOL
                        : p.status.computePool())
                    + " failed ("
                    + cause
                    + "); rolled back to version "
                    + evolution.fromVersion()
                    + " on compute pool "
                    + evolution.fromPool()
                : "Version "
                    + p.table.definitionVersion()
                    + " did not come up ("
                    + cause
                    + "); rolled back to version "
                    + evolution.fromVersion())
            + (evolution.savepointPath() == null
                ? ""
                : evolution.move()
                    ? ", restarting its job from the newest checkpoint the job there completed,"
                        + " else from "
                        + evolution.savepointPath()
                    : ", restarting its job from " + evolution.savepointPath());
    p.event("WARNING", evolution.move() ? "MoveRolledBack" : "EvolutionRolledBack", message);
    p.save(
        Phase.ALTERING,
        p.status.toBuilder()
            .job(null, null)
            .pipelineName(evolution.fromPipeline())
            .savepoint(null, evolution.savepointPath())
            .savepointOf(evolution.fromPipeline())
            .stopRequested(true)
            .failures(0)
            .evolution(null)
            .detail(message)
            .build()
            .with(TableStatus.READY, false, Reason.EvolutionRolledBack, message),
        null);
    p.step("rollback");
    store.rollBack(
        p.table.id(), p.token(), p.table.definitionVersion(), evolution.fromVersion(), cause);
    return Next.soon();
  }

  /**
   * Every retained checkpoint of the table's jobs: under the cluster's checkpoint storage (known
   * from the newest checkpoint recorded), one directory per job id.
   */
  private void deleteCheckpoints(ReconcilePass p) {
    TableStatus.RestorePoint point = p.status.checkpoint();
    String directory = point == null ? null : checkpointDirectory(point.path());
    if (directory == null || directory.lastIndexOf('/') < 0) {
      return;
    }
    String storage = directory.substring(0, directory.lastIndexOf('/'));
    Set<String> directories = new HashSet<>(Set.of(directory));
    for (JobSummary job : p.overview) {
      if (job.name().startsWith("tributary-" + p.table.id() + "-")) {
        directories.add(storage + "/" + job.id());
      }
    }
    for (String d : directories) {
      if (!deleteCheckpoints(p, d)) {
        return; // the storage is not reachable from here: the others are not either
      }
    }
  }

  private static final Pattern CHECKPOINT = Pattern.compile("(.*)/chk-\\d+/?");

  /** The job's checkpoint directory of a checkpoint path (…/jobId/chk-N); null for a savepoint. */
  static String checkpointDirectory(String path) {
    Matcher m = CHECKPOINT.matcher(path);
    return m.matches() ? m.group(1) : null;
  }

  /**
   * Deletes one job's retained checkpoints; false, with a {@code CheckpointsKept} event, when their
   * storage cannot be reached from the service.
   */
  boolean deleteCheckpoints(ReconcilePass p, String directory) {
    p.step("delete-checkpoints");
    if (jobs.deleteCheckpoints(directory).isPresent()) {
      return true;
    }
    p.event(
        "WARNING",
        "CheckpointsKept",
        "Checkpoints under " + directory + " cannot be deleted from here; use the storage's tools");
    return false;
  }

  Next delete(ReconcilePass p) {
    p.save(
        Phase.DELETING, p.status.with(TableStatus.READY, false, Reason.Deleting, "Dropping"), null);
    for (JobSummary job : p.overview) {
      boolean ours =
          job.id().equals(p.status.jobId())
              || job.name().startsWith("tributary-" + p.table.id() + "-");
      if (ours && !job.state().terminal()) {
        p.step("cancel");
        jobs.cancel(job.id());
        p.event("NORMAL", "Deleting", "Cancelled job " + job.id());
        return Next.soon();
      }
    }
    p.step("delete-topic");
    if (p.status.topic() != null) {
      topics.delete(p.status.topic());
    }
    topics.deleteGroup(JobSubmission.group(p.table.id()));
    String savepoints = settings.savepointDir() + "/" + p.table.id();
    if (jobs.pruneSavepoints(savepoints, 0, Set.of()).isEmpty()) {
      p.event(
          "WARNING",
          "SavepointsKept",
          "Savepoints under "
              + savepoints
              + " cannot be"
              + " deleted from here; delete them with the cluster's storage tools");
    }
    deleteCheckpoints(p);
    p.step("delete-subjects");
    for (String subject : new String[] {p.status.keySubject(), p.status.valueSubject()}) {
      if (subject != null) {
        registry.deleteSubject(subject, true);
      }
    }
    p.event("NORMAL", "Deleted", "Job, topic and subjects removed; definition dropped");
    store.delete(p.table.id(), p.token());
    return null;
  }
}
