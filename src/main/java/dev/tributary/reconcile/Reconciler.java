package dev.tributary.reconcile;

import dev.tributary.reconcile.TableStatus.Reason;
import dev.tributary.reconcile.port.FlinkJobs;
import dev.tributary.reconcile.port.FlinkJobs.JobState;
import dev.tributary.reconcile.port.FlinkJobs.JobSummary;
import dev.tributary.reconcile.port.FlinkJobs.SavepointStatus;
import dev.tributary.reconcile.port.FlinkSql;
import dev.tributary.reconcile.port.RemoteSystemException;
import dev.tributary.reconcile.port.SchemaRegistry;
import dev.tributary.reconcile.port.Topics;
import dev.tributary.sql.Defaults;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.table.Phase;
import dev.tributary.table.TableSpec;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One level-triggered pass over one table: observe the world (the job from a shared overview, the
 * topic, the subjects), then take the next ensure-step towards the spec. Every handle is recorded
 * before the call that creates it, so a pass killed between any two steps is finished by the next
 * one without a second job, topic or subject. A pass never waits on Flink: it asks to be looked at
 * again soon.
 */
public class Reconciler {

  /** Fault injection for tests: called between steps; throwing there stops the pass like a crash. */
  public interface Faults {
    void at(String step);

    Faults NONE = step -> {};
  }

  /** When to look at the table again. */
  public record Next(Duration after, boolean failed) {
    static Next soon() {
      return new Next(Duration.ofMillis(200), false);
    }

    static Next resync(Duration resync) {
      return new Next(resync, false);
    }
  }

  static final int MAX_FAILURES = 5;
  static final Duration STABLE_AFTER = Duration.ofMinutes(1);

  private final ReconcileStore store;
  private final Topics topics;
  private final SchemaRegistry registry;
  private final FlinkJobs jobs;
  private final QueryPlanner planner;
  private final FlinkSql sql;
  private final Settings settings;
  private final Faults faults;
  private final Clock clock;

  /** Where things go and how often to look. */
  public record Settings(String bootstrapServers, String savepointDir, Duration resync) {}

  public Reconciler(ReconcileStore store, Topics topics, SchemaRegistry registry, FlinkSql sql, FlinkJobs jobs,
      QueryPlanner planner, Settings settings, Faults faults, Clock clock) {
    this.store = store;
    this.topics = topics;
    this.registry = registry;
    this.sql = sql;
    this.jobs = jobs;
    this.planner = planner;
    this.settings = settings;
    this.faults = faults;
    this.clock = clock;
  }

  /** Flink could not be observed: the table waits, and says so. */
  public Next unavailable(TableSnapshot table, RemoteSystemException e) {
    return new Pass(table, List.of()).waiting(e);
  }

  /** A pass with the job overview taken once for the whole batch. */
  public Next reconcile(TableSnapshot table, List<JobSummary> overview) {
    Pass pass = new Pass(table, overview);
    try {
      return pass.run();
    } catch (SchemaRegistry.IncompatibleSchemaException e) {
      return pass.failed(Reason.SchemaIncompatible, e.getMessage());
    } catch (FlinkSql.StatementFailedException e) {
      return pass.failed(Reason.JobFailed, "Flink refused the job: " + e.getMessage());
    } catch (IllegalArgumentException e) {
      return pass.failed(Reason.InvalidQuery, e.getMessage());
    } catch (RemoteSystemException e) {
      return e.retryable() ? pass.waiting(e) : pass.failed(Reason.JobFailed, e.getMessage());
    }
  }

  /** The state of one pass: the snapshot it started from and what it has written since. */
  private final class Pass {
    private final TableSnapshot table;
    private final List<JobSummary> overview;
    private TableStatus status;
    private Phase phase;
    private TableStatus savedStatus;
    private Phase savedPhase;

    Pass(TableSnapshot table, List<JobSummary> overview) {
      this.table = table;
      this.overview = overview;
      this.status = table.status();
      this.phase = table.phase();
      this.savedStatus = status;
      this.savedPhase = phase;
    }

    Next run() {
      if (table.deletionRequested()) {
        return delete();
      }
      if (table.spec().kind() == TableSpec.Kind.PIPELINE_TABLE) {
        return save(Phase.PENDING, status.with(TableStatus.READY, false, Reason.Provisioning,
            "Pipeline tables are stored and versioned; running their flows is not supported yet"), Next.resync(settings.resync()));
      }
      MaterializedTableDefinition effective = Defaults.effective(table.spec().definition());
      if (effective.refreshMode() == dev.tributary.sql.Clauses.RefreshMode.FULL) {
        return save(Phase.PENDING, status.with(TableStatus.READY, false, Reason.Provisioning,
            "REFRESH_MODE = FULL (freshness " + effective.freshness().sql() + ") runs as scheduled batch refreshes, which are not"
                + " supported yet; the definition is stored. Use a freshness under 30 minutes or REFRESH_MODE = CONTINUOUS to run it now"),
            Next.resync(settings.resync()));
      }
      if (status.invalidVersion() == table.definitionVersion()) {
        return Next.resync(settings.resync());
      }
      if (status.validatedVersion() != table.definitionVersion()) {
        Next invalid = validate(effective);
        if (invalid != null) {
          return invalid;
        }
      }
      PipelinePlan plan = new PipelinePlan(table.name(), pipelineName(), effective, status.schema(), settings.bootstrapServers());
      Optional<JobSummary> live = liveJob();
      if (table.spec().stopped()) {
        return suspend(live);
      }
      if (live.isPresent() && !live.get().name().equals(plan.pipelineName())) {
        return evolve(live.get());
      }
      Next provisioned = ensureTopic(plan);
      if (provisioned != null) {
        return provisioned;
      }
      ensureSubjects(plan);
      return ensureJob(plan, live);
    }

    String pipelineName() {
      return "tributary-" + table.id() + "-v" + table.definitionVersion();
    }

    private Next validate(MaterializedTableDefinition effective) {
      save(phase == Phase.PENDING ? Phase.CREATING : phase, status.with(TableStatus.READY, false, Reason.Provisioning, "Validating the query with Flink"), null);
      try {
        QueryPlanner.QueryShape shape = planner.validate(table.name(), table.spec().definition());
        String mode = effective.options().get("changelog.mode");
        TableStatus next = status.toBuilder().validated(table.definitionVersion(), shape.columns(), mode).detail(null).build();
        event("NORMAL", "QueryValidated", "Query produces " + shape.columns().size() + " columns, " + (shape.changelogMode().insertOnly() ? "insert-only" : "with updates"));
        save(phase, next.with(TableStatus.READY, false, Reason.QueryValidated, "Query validated"), null);
        return null; // valid: provisioning goes on in this pass
      } catch (QueryPlanner.InvalidQueryException e) {
        event("WARNING", "InvalidQuery", e.getMessage());
        TableStatus next = status.toBuilder().invalid(table.definitionVersion()).detail(e.getMessage()).build();
        return save(Phase.FAILED, next.with(TableStatus.READY, false, Reason.InvalidQuery, e.getMessage()), Next.resync(settings.resync()));
      }
    }

    private Next ensureTopic(PipelinePlan plan) {
      Topics.TopicSpec spec = plan.topic();
      Optional<Topics.TopicState> existing = topics.describe(spec.name());
      if (existing.isPresent() && status.topic() == null) {
        String message = "Topic " + spec.name() + " already exists and does not belong to this table; it is not adopted";
        event("WARNING", "TopicConflict", message);
        return save(Phase.FAILED, status.toBuilder().detail(message).build().with(TableStatus.TOPIC_READY, false, Reason.TopicConflict, message), Next.resync(settings.resync()));
      }
      if (existing.isEmpty()) {
        // Intent first: a topic named in our status is ours, even if the create below never returns.
        save(phase == Phase.PENDING ? Phase.CREATING : phase, status.toBuilder().topic(spec.name(), spec.partitions()).build(), null);
        faults.at("topic");
        topics.ensure(spec);
        event("NORMAL", "TopicCreated", "Created topic " + spec.name() + " with " + spec.partitions() + " partitions");
      } else {
        java.util.Map<String, String> drift = new java.util.HashMap<>();
        spec.configs().forEach((k, v) -> {
          if (!v.equals(existing.get().configs().get(k))) {
            drift.put(k, v);
          }
        });
        if (!drift.isEmpty()) {
          topics.alterConfigs(spec.name(), drift);
          event("NORMAL", "TopicUpdated", "Set " + drift + " on topic " + spec.name());
        }
      }
      status = status.with(TableStatus.TOPIC_READY, true, Reason.TopicCreated, "Topic " + spec.name() + " is ready");
      return null;
    }

    private void ensureSubjects(PipelinePlan plan) {
      List<PipelinePlan.Subject> subjects = plan.subjects();
      PipelinePlan.Subject value = subjects.get(subjects.size() - 1);
      PipelinePlan.Subject key = subjects.size() > 1 ? subjects.get(0) : null;
      if (status.valueSubject() == null || (key != null && status.keySubject() == null)) {
        save(phase, status.toBuilder().subjects(key == null ? null : key.name(), null, value.name(), null).build(), null);
      }
      faults.at("subjects");
      Integer keyId = key == null ? null : register(key);
      int valueId = register(value);
      status = status.toBuilder().subjects(key == null ? null : key.name(), keyId, value.name(), valueId).build()
          .with(TableStatus.SCHEMA_REGISTERED, true, Reason.SchemaRegistered, "Registered " + value.name() + (key == null ? "" : " and " + key.name()));
    }

    private int register(PipelinePlan.Subject subject) {
      Optional<SchemaRegistry.RegisteredSchema> latest = registry.latest(subject.name());
      if (latest.isPresent() && latest.get().schema().equals(subject.schema())) {
        return latest.get().id();
      }
      try {
        int id = registry.register(subject.name(), subject.schema());
        event("NORMAL", "SchemaRegistered", "Registered " + subject.name() + " (id " + id + ")");
        return id;
      } catch (SchemaRegistry.IncompatibleSchemaException e) {
        status = status.with(TableStatus.SCHEMA_REGISTERED, false, Reason.SchemaIncompatible, e.getMessage());
        throw e;
      }
    }

    private Next ensureJob(PipelinePlan plan, Optional<JobSummary> live) {
      if (live.isPresent()) {
        return observeRunning(live.get());
      }
      Optional<JobSummary> last = lastJob(plan.pipelineName());
      if (status.failedGeneration() > 0 && table.generation() > status.failedGeneration()) {
        // The user resumed or changed a FAILED table: a fresh round of attempts.
        status = status.toBuilder().failedAt(0).failures(0).build();
        if (last.isPresent() && last.get().state() == JobState.FAILED) {
          return submit(plan, jobs.latestRestorePath(last.get().id()).orElse(status.savepointPath()), 0);
        }
      }
      if (last.isPresent() && last.get().state() == JobState.FAILED) {
        return restartFailed(plan, last.get());
      }
      if (last.isPresent() && last.get().state() == JobState.FINISHED && !status.stopRequested()) {
        // A bounded query ran to its end; there is nothing to restart.
        TableStatus s = status.with(TableStatus.JOB_RUNNING, false, Reason.Completed, "Job " + last.get().id() + " finished: the query is bounded")
            .with(TableStatus.READY, true, Reason.Completed, "The query completed");
        return save(Phase.RUNNING, s, Next.resync(settings.resync()));
      }
      // A job that ended while it should run: resubmit, restoring whatever state it left.
      String restore = status.savepointPath();
      if (restore == null && last.isPresent()) {
        restore = jobs.latestRestorePath(last.get().id()).orElse(null);
      }
      return submit(plan, restore, status.consecutiveFailures());
    }

    private Next observeRunning(JobSummary job) {
      Phase next = switch (job.state()) {
        case RUNNING -> Phase.RUNNING;
        case RESTARTING, FAILING -> Phase.DEGRADED;
        case CANCELLING -> Phase.STOPPING;
        default -> Phase.CREATING;
      };
      boolean running = next == Phase.RUNNING;
      // Failures count as consecutive until a job has stayed up for a while.
      boolean stable = running && job.startTime() != null && job.startTime().isBefore(clock.instant().minus(STABLE_AFTER));
      TableStatus s = status.toBuilder().job(job.id(), job.startTime()).failures(stable ? 0 : status.consecutiveFailures())
          .stopRequested(false).savepoint(null, null).build();
      s = s.with(TableStatus.JOB_RUNNING, running, running ? Reason.JobRunning : Reason.Provisioning, "Job " + job.id() + " is " + job.state())
          .with(TableStatus.READY, running, running ? Reason.JobRunning : Reason.Provisioning, running ? "Running" : "Job is " + job.state());
      if (running && phase != Phase.RUNNING) {
        event("NORMAL", "JobRunning", "Job " + job.id() + " is running");
        s = s.toBuilder().detail(null).build();
      }
      return save(next, s, running ? Next.resync(settings.resync()) : Next.soon());
    }

    private Next restartFailed(PipelinePlan plan, JobSummary failed) {
      String cause = jobs.job(failed.id()).flatMap(FlinkJobs.JobDetail::failureCause).orElse("the job failed");
      int failures = status.consecutiveFailures() + (failed.id().equals(status.jobId()) ? 1 : 0);
      if (failures >= MAX_FAILURES) {
        if (phase != Phase.FAILED) {
          event("WARNING", "RetriesExhausted", "Failed " + failures + " times in a row; last cause: " + cause);
        }
        TableStatus s = status.toBuilder().failures(failures).failedAt(table.generation()).detail(cause).job(null, null).build()
            .with(TableStatus.JOB_RUNNING, false, Reason.RetriesExhausted, cause)
            .with(TableStatus.READY, false, Reason.RetriesExhausted, "Failed " + failures + " times; resume or change the table to try again");
        return save(Phase.FAILED, s, Next.resync(settings.resync()));
      }
      Duration backoff = Duration.ofMillis((long) (2000 * Math.pow(1.5, failures - 1)));
      if (failed.id().equals(status.jobId())) {
        // First sight of this failure: record it and wait out the backoff before restarting.
        event("WARNING", "JobFailed", "Attempt " + failures + " of " + MAX_FAILURES + " failed: " + cause + "; restarting in " + backoff.toSeconds() + " s");
        TableStatus s = status.toBuilder().failures(failures).detail(cause).job(null, null).build()
            .with(TableStatus.JOB_RUNNING, false, Reason.JobFailed, cause)
            .with(TableStatus.READY, false, Reason.JobRestarting, "Restarting after failure " + failures);
        save(Phase.FAILING, s, null);
        return new Next(backoff, true);
      }
      String restore = jobs.latestRestorePath(failed.id()).orElse(status.savepointPath());
      return submit(plan, restore, status.consecutiveFailures());
    }

    private Next submit(PipelinePlan plan, String restorePath, int failures) {
      // Intent first: the pipeline name is recorded before the job exists, and a later pass adopts
      // a job of that name instead of submitting another.
      save(phase == Phase.PENDING || phase == Phase.STOPPED ? Phase.CREATING : phase,
          status.toBuilder().pipelineName(plan.pipelineName()).job(null, null).failures(failures).build(), null);
      faults.at("submit");
      String jobId = planner.inSession(table.name(), table.spec().definition().query(), plan.sourceStartOptions(clock.instant()),
          plan.sessionProperties(restorePath), session -> {
            for (String statement : plan.jobStatements()) {
              sql.execute(session, statement);
            }
            return sql.execute(session, plan.insert()).jobId().orElseThrow(() -> new IllegalStateException("The INSERT returned no job id"));
          });
      event("NORMAL", "JobSubmitted", "Submitted job " + jobId + " (" + plan.pipelineName() + ")" + (restorePath == null ? "" : " from " + restorePath));
      faults.at("submitted");
      TableStatus s = status.toBuilder().job(jobId, null).build().with(TableStatus.JOB_RUNNING, false, Reason.JobSubmitted, "Job " + jobId + " submitted");
      return save(Phase.CREATING, s, new Next(Duration.ofMillis(100), false));
    }

    private Next suspend(Optional<JobSummary> live) {
      if (live.isPresent()) {
        JobSummary job = live.get();
        if (status.savepointTriggerId() == null || !job.id().equals(status.jobId())) {
          save(Phase.STOPPING, status.toBuilder().job(job.id(), job.startTime()).stopRequested(true).savepoint(null, null).build()
              .with(TableStatus.READY, false, Reason.Suspending, "Stopping with a savepoint"), null);
          faults.at("stop");
          String trigger = jobs.triggerStopWithSavepoint(job.id(), settings.savepointDir() + "/" + table.id());
          event("NORMAL", "Suspending", "Stopping job " + job.id() + " with a savepoint");
          return save(Phase.STOPPING, status.toBuilder().savepoint(trigger, null).build(), Next.soon());
        }
        SavepointStatus progress = jobs.savepointStatus(job.id(), status.savepointTriggerId());
        if (progress.phase() == SavepointStatus.Phase.FAILED) {
          event("WARNING", "SuspendFailed", "Savepoint failed: " + progress.failureCause().orElse("unknown cause") + "; trying again");
          return save(Phase.STOPPING, status.toBuilder().savepoint(null, null).detail(progress.failureCause().orElse(null)).build(), Next.soon());
        }
        if (progress.phase() == SavepointStatus.Phase.COMPLETED) {
          status = status.toBuilder().savepoint(status.savepointTriggerId(), progress.location().orElseThrow()).build();
        }
        return save(Phase.STOPPING, status, Next.soon());
      }
      if (status.stopRequested() && status.savepointPath() == null && status.jobId() != null) {
        // The job ended, but the savepoint's location was not recorded (or the pass died before it was).
        String path = status.savepointTriggerId() == null ? null
            : jobs.savepointStatus(status.jobId(), status.savepointTriggerId()).location().orElse(null);
        if (path == null) {
          path = jobs.latestRestorePath(status.jobId()).orElse(null);
        }
        status = status.toBuilder().savepoint(status.savepointTriggerId(), path).build();
      }
      if (phase != Phase.STOPPED) {
        event("NORMAL", "Suspended", status.savepointPath() == null ? "Suspended (no job was running)" : "Suspended at savepoint " + status.savepointPath());
      }
      TableStatus s = status.with(TableStatus.JOB_RUNNING, false, Reason.Suspended, "Suspended")
          .with(TableStatus.READY, false, Reason.Suspended, status.savepointPath() == null ? "Suspended" : "Suspended at " + status.savepointPath());
      return save(Phase.STOPPED, s, Next.resync(settings.resync()));
    }

    private Next evolve(JobSummary old) {
      // Evolution discards state: the old job is cancelled, and the new one starts per START_MODE.
      save(Phase.ALTERING, status.with(TableStatus.READY, false, Reason.Evolving, "Replacing job " + old.id() + " with the new definition"), null);
      faults.at("cancel-old");
      jobs.cancel(old.id());
      event("NORMAL", "Evolving", "Cancelled job " + old.id() + " of the previous definition");
      return save(Phase.ALTERING, status.toBuilder().job(null, null).savepoint(null, null).stopRequested(false).failures(0).build(), Next.soon());
    }

    private Next delete() {
      save(Phase.DELETING, status.with(TableStatus.READY, false, Reason.Deleting, "Dropping"), null);
      for (JobSummary job : overview) {
        boolean ours = job.id().equals(status.jobId()) || job.name().startsWith("tributary-" + table.id() + "-");
        if (ours && !job.state().terminal()) {
          faults.at("cancel");
          jobs.cancel(job.id());
          event("NORMAL", "Deleting", "Cancelled job " + job.id());
          return Next.soon();
        }
      }
      faults.at("delete-topic");
      if (status.topic() != null) {
        topics.delete(status.topic());
      }
      faults.at("delete-subjects");
      for (String subject : new String[] {status.keySubject(), status.valueSubject()}) {
        if (subject != null) {
          registry.deleteSubject(subject, true);
        }
      }
      event("NORMAL", "Deleted", "Job, topic and subjects removed; definition dropped");
      store.delete(table.id());
      return null;
    }

    /** A dependency is down or refused: record what is waiting on what, and try again with backoff. */
    Next waiting(RemoteSystemException e) {
      String message = "Waiting for " + e.system() + ": " + e.getMessage();
      TableStatus s = status.toBuilder().detail(e.getMessage()).build()
          .with(TableStatus.READY, false, e.retryable() ? Reason.DependencyUnavailable : Reason.JobFailed, message);
      if (!s.equals(status)) {
        event("WARNING", e.retryable() ? "DependencyUnavailable" : "RemoteError", message);
      }
      Phase next = phase == Phase.RUNNING ? Phase.DEGRADED : phase;
      save(next, s, null);
      return new Next(Duration.ZERO, true);
    }

    private Optional<JobSummary> liveJob() {
      String prefix = "tributary-" + table.id() + "-";
      return overview.stream()
          .filter(j -> !j.state().terminal())
          .filter(j -> j.id().equals(status.jobId()) || j.name().startsWith(prefix))
          .findFirst();
    }

    private Optional<JobSummary> lastJob(String pipelineName) {
      if (status.jobId() != null) {
        Optional<JobSummary> recorded = overview.stream().filter(j -> j.id().equals(status.jobId())).findFirst();
        if (recorded.isPresent()) {
          return recorded;
        }
      }
      return overview.stream().filter(j -> j.name().equals(pipelineName))
          .max(java.util.Comparator.comparing(j -> j.startTime() == null ? java.time.Instant.EPOCH : j.startTime()));
    }

    /** Writes status only when it differs from what is stored. */
    private Next save(Phase newPhase, TableStatus newStatus, Next next) {
      if (newPhase != savedPhase || !newStatus.equals(savedStatus)) {
        store.saveStatus(table.id(), newPhase, table.generation(), newStatus);
        savedPhase = newPhase;
        savedStatus = newStatus;
      }
      phase = newPhase;
      status = newStatus;
      return next;
    }

    /** A definition that cannot run as written: FAILED until the spec changes. */
    Next failed(Reason reason, String message) {
      event("WARNING", reason.name(), message);
      TableStatus s = status.toBuilder().invalid(table.definitionVersion()).detail(message).build()
          .with(TableStatus.READY, false, reason, message);
      return save(Phase.FAILED, s, Next.resync(settings.resync()));
    }

    private void event(String type, String reason, String message) {
      store.event(table.id(), type, reason, message);
    }
  }
}
