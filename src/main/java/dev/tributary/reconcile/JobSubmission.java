package dev.tributary.reconcile;

import dev.tributary.plan.ChangePlanner;
import dev.tributary.plan.DeadLetters;
import dev.tributary.plan.PipelinePlan;
import dev.tributary.plan.QueryPlanner;
import dev.tributary.port.DependencyUnavailableException;
import dev.tributary.port.ExternalSystem;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.Topics;
import dev.tributary.reconcile.Reconciler.Next;
import dev.tributary.sql.Clauses;
import dev.tributary.sql.DeadLetterTable;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Statement;
import dev.tributary.system.Beside;
import dev.tributary.table.Phase;
import dev.tributary.table.TableStatus;
import dev.tributary.table.TableStatus.Evolution;
import dev.tributary.table.TableStatus.Reason;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Submitting a table's job: wait for upstream tables to be provisioned, record the pipeline name
 * and the job's fixed id before the call (intent before side effect), and say where each Kafka
 * source starts when no state is restored. A racing pass submits the same id, which Flink refuses.
 */
final class JobSubmission {

  private final FlinkSql sql;
  private final FlinkJobs jobs;
  private final Topics topics;
  private final QueryPlanner planner;
  private final Transitions transitions;
  private final OnceRuns onceRuns;
  private final SubjectIds schemaIds;
  private final SubmissionSlots slots;
  private final Clock clock;

  JobSubmission(
      FlinkSql sql,
      FlinkJobs jobs,
      Topics topics,
      QueryPlanner planner,
      Transitions transitions,
      OnceRuns onceRuns,
      SubjectIds schemaIds,
      SubmissionSlots slots,
      Clock clock) {
    this.sql = sql;
    this.schemaIds = schemaIds;
    this.slots = slots;
    this.jobs = jobs;
    this.topics = topics;
    this.planner = planner;
    this.transitions = transitions;
    this.onceRuns = onceRuns;
    this.clock = clock;
  }

  /** Flink's option for a job id chosen by the submitter (honoured by the session executor). */
  static final String FIXED_JOB_ID = "$internal.pipeline.job-id";

  /** The consumer group under which a table's jobs commit their source offsets. */
  static String group(UUID table) {
    return "tributary-" + table;
  }

  /**
   * IMPORT CHECKPOINT of a flow: the savepoint or retained checkpoint its first job restores, so
   * that a job migrated from elsewhere goes on where it stopped. Only until the flow's own job has
   * completed a checkpoint; a path Flink cannot read fails the job with that cause, in the status.
   */
  static String imported(ReconcilePass p) {
    Statement.CreateFlow flow = p.table.spec().flowStatement();
    if (flow == null
        || flow.importCheckpoint() == null
        || p.status.checkpoint() != null
        || p.table.spec().fullRefresh() > 0) { // a full refresh starts clean
      return null;
    }
    return flow.importCheckpoint();
  }

  /**
   * The fixed id of a submission: derived from the table, the pipeline and the submission number,
   * so two passes that race (a lease that expired mid-pass) submit the same id, and Flink's
   * Dispatcher refuses the second job with it.
   */
  static String jobId(UUID table, String pipeline, long submission) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256")
              .digest((table + "/" + pipeline + "/" + submission).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(hash, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean taken(ReconcilePass p, String jobId) {
    return p.overview.stream().anyMatch(j -> j.id().equals(jobId));
  }

  Next submit(ReconcilePass p, PipelinePlan plan, String restorePath, int failures) {
    Next waiting = awaitUpstream(p);
    if (waiting != null) {
      return waiting;
    }
    return slots.in(plan.pool(), () -> submitInSlot(p, plan, restorePath, failures));
  }

  private Next submitInSlot(ReconcilePass p, PipelinePlan plan, String restorePath, int failures) {
    // Intent first: the pipeline name and the job's fixed id are recorded before the job exists
    // (before its session is opened; a topic created beside the pass is awaited before the INSERT).
    // A later pass adopts a job of that name or id instead of submitting another, and a racing
    // pass that read the same status submits the same id, which Flink refuses the second time.
    long submission = p.status.submission();
    while (taken(p, jobId(p.table.id(), plan.pipelineName(), submission))) {
      submission++; // that id belongs to a job that ended: the next submission gets the next id
    }
    String fixedId = jobId(p.table.id(), plan.pipelineName(), submission);
    long interval = plan.checkpointInterval().toMillis();
    // Never RUNNING while no job runs: a restart or an evolution stays ALTERING (FAILING after a
    // failure), anything else is CREATING until the new job is seen running.
    Phase submitting =
        p.phase == Phase.ALTERING || p.phase == Phase.FAILING ? p.phase : Phase.CREATING;
    Map<String, Map<Integer, Long>> bounds = OnceRuns.once(p) ? onceRuns.bounds(p) : Map.of();
    // Written before the session is opened, while the claim is fresh; not waiting for a topic
    // created beside the pass (see ReconcilePass#saveIntent).
    p.saveIntent(
        submitting,
        p.status.toBuilder()
            .pipelineName(plan.pipelineName())
            .job(null, null)
            .jobRuns(
                p.table.definitionVersion(),
                interval,
                plan.effective().options().get("error-handling.mode"))
            .computePool(plan.pool())
            .submission(submission)
            .failures(failures)
            .build(),
        null);
    p.step("submit");
    Map<String, String> properties = new LinkedHashMap<>(plan.sessionProperties(restorePath));
    properties.put(FIXED_JOB_ID, fixedId);
    if (restorePath != null && restorePath.equals(imported(p))) {
      // Another job's state: what does not map onto this job's operators is left behind.
      properties.put("execution.state-recovery.ignore-unclaimed-state", "true");
    }
    if (OnceRuns.once(p)) {
      // Unchained, the sink's writer is a vertex of its own, whose input count is the rows written.
      properties.put("pipeline.operator-chaining.enabled", "false");
    }
    // Asked while the session is prepared, instead of by the writer on the job's time.
    CompletableFuture<Map<String, Integer>> ids = schemaIds.of(plan, p.registering());
    Map<String, String> positions = new LinkedHashMap<>();
    String jobId;
    try {
      jobId =
          planner.inSession(
              p.table.name(),
              plan.pool(),
              p.table.spec().definition().query(),
              starts(p, plan, restorePath != null, positions, bounds),
              properties,
              session -> {
                List<String> statements = statements(p, plan, Beside.await(ids));
                for (String statement : statements.subList(0, statements.size() - 1)) {
                  sql.configure(session, statement);
                }
                // The topic created beside the pass exists before the INSERT is sent.
                p.provisioned();
                return sql.execute(session, statements.get(statements.size() - 1))
                    .jobId()
                    .orElseThrow(() -> new IllegalStateException("The INSERT returned no job id"));
              });
    } catch (FlinkSql.StatementFailedException e) {
      if (e.getMessage().contains("DuplicateJobSubmission")
          || e.getMessage().contains("has already been submitted")) {
        // Another pass submitted this very job: adopt it on the next look.
        p.event("NORMAL", "JobAdopted", "Job " + fixedId + " was already submitted; adopting it");
        return Next.soon();
      }
      if (p.status.evolution() != null) {
        return transitions.rollBack(p, "Flink refused the new job: " + e.getMessage());
      }
      throw e;
    }
    p.event(
        "NORMAL",
        "JobSubmitted",
        "Submitted job "
            + jobId
            + " ("
            + plan.pipelineName()
            + ")"
            + (restorePath == null
                ? "; sources start at " + positions
                : " restoring " + restorePath));
    p.step("submitted");
    return submitted(p, jobId, restorePath, positions);
  }

  /**
   * The job's statements, its INSERT last; with {@code 'error-handling.mode' = 'log'}, the INSERT
   * is a statement set that also writes the records its Kafka sources could not read into the
   * dead-letter topic.
   */
  private List<String> statements(
      ReconcilePass p, PipelinePlan plan, Map<String, Integer> schemaIds) {
    List<String> statements =
        new ArrayList<>(
            plan.jobStatements(topics.transactionMaxTimeout(), plan.pipelineName(), schemaIds));
    if (!DeadLetterTable.logs(plan.effective().options())) {
      statements.add(plan.insert());
      return statements;
    }
    List<Statement.CreateSourceTable> guarded =
        planner.sourceDeclarations(p.table.name(), p.table.spec().definition().query()).stream()
            .filter(d -> "kafka".equals(d.options().get("connector")))
            .filter(d -> d.options().get("topic") != null)
            .filter(d -> !plan.errorHandling(d.options()).isEmpty())
            .toList();
    if (guarded.isEmpty()) {
      statements.add(plan.insert());
      return statements;
    }
    ObjectName target = DeadLetterTable.target(p.table.name(), plan.effective().options());
    statements.add(
        DeadLetters.sinkTable(
            Provisioning.deadLetterTopic(planner, target),
            plan.bootstrapServers(),
            plan.registryUrl(),
            topics.transactionMaxTimeout(),
            plan.pipelineName()));
    statements.add(DeadLetters.statementSet(p.table.name(), plan.insert(), guarded));
    return statements;
  }

  /**
   * A job reads other tables through their topics: one that is not provisioned yet (created in the
   * same script) is waited for, not read through its query. Null when there is none.
   */
  private Next awaitUpstream(ReconcilePass p) {
    List<ObjectName> waiting =
        planner.pendingSources(p.table.name(), p.table.spec().definition().query());
    if (waiting.isEmpty()) {
      return null;
    }
    String message = "Waiting for " + waiting + " to be provisioned: this table's job reads them";
    if (!message.equals(p.status.detail())) {
      p.event("NORMAL", "WaitingForUpstream", message);
    }
    p.save(
        p.phase == Phase.PENDING ? Phase.CREATING : p.phase,
        p.status.toBuilder()
            .detail(message)
            .build()
            .with(TableStatus.JOB_RUNNING, false, Reason.WaitingForUpstream, message),
        null);
    return new Next(Duration.ofSeconds(1), false);
  }

  /** The submitted job in the status: its id, what it restored, and for INSERT ONCE its run. */
  private Next submitted(
      ReconcilePass p, String jobId, String restorePath, Map<String, String> positions) {
    TableStatus.Builder submitted = p.status.toBuilder();
    if (OnceRuns.once(p)) {
      TableStatus.Once run = p.status.once();
      submitted.once(new TableStatus.Once(run.bounds(), jobId, null, null, null));
    }
    TableStatus s =
        submitted
            .job(jobId, null)
            .restoredFrom(
                restorePath == null
                    ? "no state; sources start at " + positions
                    : "state of " + restorePath)
            .build()
            .with(
                TableStatus.JOB_RUNNING, false, Reason.JobSubmitted, "Job " + jobId + " submitted");
    // Looked at again while it starts (JobSteps.untilItRuns): the user waits for RUNNING.
    return p.save(Phase.CREATING, s, new Next(JobSteps.STARTING_POLL, false));
  }

  /**
   * Options for each Kafka source of the job: the table's consumer group (sources commit their
   * offsets there at every checkpoint and savepoint) and where to start without restored state. The
   * RESUME_OR_* modes continue a source from the group's committed offsets when it has them, so a
   * new definition reads each source row once across the change; a source read for the first time,
   * and the FROM_* modes, start where START_MODE says. Restored state always wins.
   */
  private QueryPlanner.SourceOptions starts(
      ReconcilePass p,
      PipelinePlan plan,
      boolean restoring,
      Map<String, String> positions,
      Map<String, Map<Integer, Long>> bounds) {
    String group = group(p.table.id());
    Clauses.StartMode mode = plan.effective().startMode();
    boolean resume = mode.kind().resumes();
    // Asked on another thread while the session is opened: the answer is needed only when the
    // first Kafka source is declared in it.
    CompletableFuture<Map<String, Map<Integer, Long>>> groupOffsets =
        resume && !restoring
            ? Beside.ask(() -> topics.committedOffsets(group))
            : CompletableFuture.completedFuture(Map.of());
    Evolution evolution = p.status.evolution();
    String savepoint = resume && !restoring && evolution != null ? evolution.savepointPath() : null;
    Map<String, String> fallback = plan.sourceStartOptions(clock.instant());
    boolean inexactAccepted = ChangePlanner.acceptsCommittedOffsets(plan.effective());
    return options -> {
      Map<String, String> extra = new LinkedHashMap<>();
      extra.put("properties.group.id", group);
      String topic = options.get("topic");
      if (!"kafka".equals(options.get("connector")) || topic == null) {
        return extra;
      }
      Map<String, Map<Integer, Long>> committed = Beside.await(groupOffsets);
      extra.putAll(plan.errorHandling(options));
      if (bounds.containsKey(topic)) {
        extra.put("scan.bounded.mode", "specific-offsets");
        extra.put("scan.bounded.specific-offsets", PipelinePlan.specificOffsets(bounds.get(topic)));
      }
      // Exact: where the old job's sources were at its final savepoint. Else the offsets they
      // committed, which can lag the savepoint by up to one checkpoint (rows read again).
      Map<Integer, Long> offsets = null;
      if (savepoint != null) {
        Optional<Map<String, Map<Integer, Long>>> read =
            jobs.sourceOffsets(savepoint, Set.of(topic));
        if (read.isEmpty()
            && committed.containsKey(topic)
            && !inexactAccepted
            && !jobs.readsSavepoints(savepoint)) {
          // The plan found the storage readable; now it is not (down, or its access changed).
          // Committed offsets could repeat rows the user did not accept: wait for the storage.
          // (A store that answers without the savepoint leaves nothing better than them.)
          throw new DependencyUnavailableException(
              ExternalSystem.FLINK,
              "cannot read the source offsets of savepoint "
                  + savepoint
                  + " to continue exactly; waiting for the state storage (or accept committed"
                  + " offsets with WITH ('resume.offsets' = 'exact-or-committed'))",
              null);
        }
        offsets = read.map(m -> m.get(topic)).orElse(null);
      }
      String from = "savepoint offsets ";
      if (offsets == null) {
        offsets = committed.get(topic);
        from = "committed offsets ";
      }
      if (offsets != null && !offsets.isEmpty()) {
        extra.put("scan.startup.mode", "specific-offsets");
        extra.put("scan.startup.specific-offsets", PipelinePlan.specificOffsets(offsets));
        positions.put(topic, from + offsets);
      } else {
        extra.putAll(fallback);
        positions.put(topic, mode.fallback());
      }
      return extra;
    };
  }
}
