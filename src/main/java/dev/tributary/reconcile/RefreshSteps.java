package dev.tributary.reconcile;

import dev.tributary.plan.PipelinePlan;
import dev.tributary.plan.QueryPlanner;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkJobs.JobState;
import dev.tributary.port.FlinkJobs.JobSummary;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.RefreshSchedules;
import dev.tributary.port.SchemaRegistry;
import dev.tributary.port.Topics;
import dev.tributary.reconcile.Reconciler.Next;
import dev.tributary.sql.RefreshSchedule;
import dev.tributary.sql.Statement;
import dev.tributary.system.Beside;
import dev.tributary.table.Phase;
import dev.tributary.table.RecordValues;
import dev.tributary.table.RefreshLedger;
import dev.tributary.table.TableRefresh;
import dev.tributary.table.TableStatus;
import dev.tributary.table.TableStatus.Reason;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * A FULL table: its schedule, and each refresh from start to end. A refresh takes its sources' end
 * offsets and its own topic's end offsets first (recorded before anything runs), then submits one
 * bounded INSERT under a fixed job id, follows the job to FINISHED, and ends by writing a tombstone
 * for every key (of the refreshed partition) that the run did not write again: after it, a
 * compacted read of the topic is the query's result at the recorded bounds. Every handle is
 * recorded before the call that creates it, so a restarted service follows the same job.
 */
final class RefreshSteps {

  /** Refresh jobs are named apart from the table's continuous jobs ("tributary-<id>-..."). */
  static String prefix(TableSnapshot table) {
    return "tributary-refresh-" + table.id() + "-";
  }

  /**
   * The sink's transactional ids of every refresh of the table: one prefix, so that each attempt
   * aborts what an earlier one, killed mid-write, left open (refreshes of a table never overlap).
   */
  static String transactionalIdPrefix(TableSnapshot table) {
    return "tributary-refresh-" + table.id();
  }

  private final FlinkSql sql;
  private final FlinkJobs jobs;
  private final Topics topics;
  private final SchemaRegistry registry;
  private final SubjectIds schemaIds;
  private final QueryPlanner planner;
  private final RefreshLedger ledger;
  private final RefreshSchedules schedules;
  private final Clock clock;

  RefreshSteps(
      FlinkSql sql,
      FlinkJobs jobs,
      Topics topics,
      SchemaRegistry registry,
      SubjectIds schemaIds,
      QueryPlanner planner,
      RefreshLedger ledger,
      RefreshSchedules schedules,
      Clock clock) {
    this.sql = sql;
    this.jobs = jobs;
    this.topics = topics;
    this.registry = registry;
    this.schemaIds = schemaIds;
    this.planner = planner;
    this.ledger = ledger;
    this.schedules = schedules;
    this.clock = clock;
  }

  /** The table is FULL, provisioned (topic, subjects): keep its schedule and run its refresh. */
  Next run(ReconcilePass p, PipelinePlan plan) {
    RefreshSchedule schedule = RefreshSchedule.of(plan.effective());
    boolean resumed =
        p.status.failedGeneration() > 0 && p.table.generation() > p.status.failedGeneration();
    if (resumed) {
      // RESUME (or a change) of a table suspended after failed refreshes: a fresh round.
      p.status = p.status.toBuilder().failedAt(0).failures(0).build();
    }
    boolean failed = p.status.failedGeneration() > 0;
    p.step("schedule");
    schedules.ensure(p.table.id(), schedule(schedule), p.table.spec().stopped() || failed);
    p.status = p.status.toBuilder().refreshScheduled(true).build();
    if ("true".equals(plan.effective().options().get("refresh.on-create"))
        && ledger.count(p.table.id()) == 0) {
      ledger
          .request(p.table.id(), TableRefresh.Trigger.ON_CREATE, null, Map.of())
          .ifPresent(
              r ->
                  p.event(
                      "NORMAL",
                      "RefreshRequested",
                      "Refresh #" + r.number() + " on create ('refresh.on-create' = 'true')"));
    }
    Optional<TableRefresh> active = ledger.active(p.table.id());
    if (active.isEmpty() && !failed && ledger.promoteWaiting(p.table.id())) {
      // The manual refresh that waited behind the one that ended runs now.
      active = ledger.active(p.table.id());
    }
    if (active.isPresent() && !failed) {
      return advance(p, plan, active.get());
    }
    return idle(p, schedule, failed);
  }

  /** No refresh runs: the table waits for its next firing (or is suspended). */
  private Next idle(ReconcilePass p, RefreshSchedule schedule, boolean failed) {
    if (failed) {
      return p.resync();
    }
    boolean stopped = p.table.spec().stopped();
    Optional<Instant> next = stopped ? Optional.empty() : schedules.nextFire(p.table.id());
    String when =
        next.map(Instant::toString).orElse(stopped ? "none while suspended" : "not scheduled");
    String message =
        (stopped ? "Suspended: the refresh schedule is paused" : "Refreshes on schedule")
            + " (every "
            + schedule.freshness().sql()
            + (schedule.cron().isPresent() ? ", cron " + schedule.cron().get() : ", fixed rate")
            + ", "
            + schedule.zone()
            + "); next refresh: "
            + when;
    Phase phase = stopped ? Phase.STOPPED : Phase.RUNNING;
    if (!stopped) {
      p.freshness(
          ledger.lastSucceeded(p.table.id()).map(TableRefresh::boundsAt).orElse(null),
          schedule.period(),
          Duration.ZERO,
          clock.instant());
    }
    if (phase != p.phase) {
      p.event("NORMAL", stopped ? "Suspended" : "Scheduled", message);
    }
    TableStatus s =
        p.status.toBuilder()
            .job(null, null)
            .pipelineName(null)
            .detail(null)
            .build()
            .with(
                TableStatus.JOB_RUNNING,
                false,
                stopped ? Reason.Suspended : Reason.Scheduled,
                stopped ? "Suspended" : "No refresh is running")
            .with(
                TableStatus.READY,
                !stopped,
                stopped ? Reason.Suspended : Reason.Scheduled,
                message);
    Duration after = next.map(n -> Duration.between(clock.instant(), n)).orElse(Duration.ZERO);
    return p.save(
        phase,
        s,
        after.isNegative() || after.isZero() || after.compareTo(p.resync().after()) > 0
            ? p.resync()
            : p.restUntil(after.plusMillis(200)));
  }

  private Next advance(ReconcilePass p, PipelinePlan plan, TableRefresh r) {
    Instant now = clock.instant();
    if (r.state() == TableRefresh.State.QUEUED) {
      if (r.notBefore() != null && r.notBefore().isAfter(now)) {
        return Next.resync(Duration.between(now, r.notBefore()).plusMillis(50));
      }
      if (r.sourceBounds() == null) {
        p.step("refresh-bounds");
        Map<String, Map<Integer, Long>> bounds = new TreeMap<>();
        for (String topic : sourceTopics(p)) {
          bounds.put(topic, topics.endOffsets(topic));
        }
        Map<Integer, Long> marks = topics.endOffsets(plan.topicName());
        r = r.toBuilder().bounds(bounds, now, marks).started(now).build();
        ledger.save(r);
        p.event(
            "NORMAL",
            "RefreshStarted",
            "Refresh #" + r.number() + " (" + describe(r) + ") reads its sources up to " + bounds);
      }
      String pipeline = prefix(p.table) + r.number() + "-" + r.attempt();
      r =
          r.toBuilder()
              .job(pipeline, JobSubmission.jobId(p.table.id(), pipeline, 0), false)
              .state(TableRefresh.State.RUNNING)
              .build();
      ledger.save(r);
    }
    String jobId = r.jobId();
    Optional<JobSummary> job = p.overview.stream().filter(j -> j.id().equals(jobId)).findFirst();
    if (job.isEmpty() && r.submitted()) {
      // The overview may predate the submission (one look serves several batches, and the ledger,
      // not the table's row, records it): ask about this job before taking it as lost.
      job = jobs.job(jobId).map(d -> new JobSummary(d.id(), d.name(), d.state(), d.startTime()));
    }
    if (job.isEmpty()) {
      if (r.submitted()) {
        return attemptFailed(
            p,
            plan,
            r,
            "job " + jobId + " is no longer known to the JobManager (it was restarted)");
      }
      return submit(p, plan, r);
    }
    JobState state = job.get().state();
    if (state == JobState.FINISHED) {
      return complete(p, plan, r);
    }
    if (state.terminal()) {
      return attemptFailed(
          p,
          plan,
          r,
          "job "
              + jobId
              + " "
              + state
              + ": "
              + jobs.job(jobId)
                  .flatMap(FlinkJobs.JobDetail::failureCause)
                  .orElse("no cause given"));
    }
    // A batch job's later stages wait for the earlier ones: Flink's RUNNING, whatever its tasks.
    JobState shown = state == JobState.DEPLOYING ? JobState.RUNNING : state;
    String message =
        "Refresh #" + r.number() + " (" + describe(r) + "): job " + jobId + " " + shown;
    // The refresh job is the refresh's (table_refresh.job_id), never the table's continuous job:
    // status.jobId stays empty, so that no continuous-job step (stop, evolve) touches it.
    TableStatus s = p.status.with(TableStatus.JOB_RUNNING, true, Reason.Refreshing, message);
    Optional<Duration> last =
        ledger
            .lastSucceeded(p.table.id())
            .filter(x -> x.startedAt() != null && x.endedAt() != null)
            .map(x -> Duration.between(x.startedAt(), x.endedAt()));
    return p.save(
        p.phase == Phase.PENDING ? Phase.CREATING : p.phase,
        s,
        Next.resync(untilItEnds(r.startedAt(), last, clock.instant())));
  }

  /** How often a pass looks at a refresh's running job. */
  static final Duration RUNNING_POLL = Duration.ofMillis(200);

  /** How often, around the time the table's last refresh ended, so its end is seen soon. */
  static final Duration ENDING_POLL = Duration.ofMillis(50);

  /** How far either side of the last refresh's length that is. */
  static final Duration ENDING_WINDOW = Duration.ofMillis(1500);

  /**
   * When to look again at a refresh started at {@code started}: every {@link #ENDING_POLL} within
   * {@link #ENDING_WINDOW} of the length of the table's {@code last} successful refresh (runs of
   * one table take about as long as each other), else every {@link #RUNNING_POLL}. A long refresh
   * is looked at fast for those 3 s only, however long it runs.
   */
  static Duration untilItEnds(Instant started, Optional<Duration> last, Instant now) {
    if (started == null || last.isEmpty()) {
      return RUNNING_POLL;
    }
    Duration elapsed = Duration.between(started, now);
    boolean near =
        elapsed.compareTo(last.get().minus(ENDING_WINDOW)) >= 0
            && elapsed.compareTo(last.get().plus(ENDING_WINDOW)) <= 0;
    return near ? ENDING_POLL : RUNNING_POLL;
  }

  private Next submit(ReconcilePass p, PipelinePlan plan, TableRefresh r) {
    // Asked while the session is prepared, instead of by the writer on the job's time.
    CompletableFuture<Map<String, Integer>> ids = schemaIds.of(plan);
    List<Statement.CreateSourceTable> sources =
        planner.sourceDeclarations(p.table.name(), plan.effective().query());
    boolean batch = sources.stream().allMatch(QueryPlanner::insertOnly);
    PipelinePlan job = plan.withPipelineName(r.pipelineName());
    Map<String, String> properties = new LinkedHashMap<>(job.refreshSessionProperties(batch));
    properties.put(JobSubmission.FIXED_JOB_ID, r.jobId());
    Map<String, Map<Integer, Long>> bounds = r.sourceBounds();
    p.step("refresh-submit");
    try {
      planner.inSession(
          p.table.name(),
          plan.pool(),
          plan.effective().query(),
          options -> bounded(options, bounds),
          properties,
          session -> {
            for (String statement :
                job.jobStatements(
                    topics.transactionMaxTimeout(),
                    transactionalIdPrefix(p.table),
                    Beside.await(ids))) {
              sql.configure(session, statement);
            }
            return sql.execute(session, job.refreshInsert(r.partition())).jobId().orElseThrow();
          });
    } catch (FlinkSql.StatementFailedException e) {
      if (e.getMessage().contains("DuplicateJobSubmission")
          || e.getMessage().contains("has already been submitted")) {
        return Next.soon(); // submitted by a pass that died before recording it: follow it
      }
      return attemptFailed(p, plan, r, "Flink refused the refresh job: " + e.getMessage());
    }
    ledger.save(r.toBuilder().job(r.pipelineName(), r.jobId(), true).build());
    p.event(
        "NORMAL",
        "RefreshSubmitted",
        "Refresh #"
            + r.number()
            + ": job "
            + r.jobId()
            + " ("
            + (batch ? "BATCH" : "STREAMING with bounded sources: a source is an updating table")
            + ")");
    return Next.resync(Duration.ofMillis(200));
  }

  /**
   * The end of a run whose job FINISHED: a tombstone for each key of the refreshed partition whose
   * newest record is older than the run (it left the result), then the outcome. Doing this again
   * after a crash writes nothing twice: a key tombstoned already has a newer null record.
   */
  private Next complete(ReconcilePass p, PipelinePlan plan, TableRefresh r) {
    p.step("refresh-tombstones");
    long scanStart = System.nanoTime();
    Map<Integer, Long> marks = r.sinkMarks() == null ? Map.of() : r.sinkMarks();
    Map<Key, Topics.TopicRecord> newest = new HashMap<>();
    long[] written = new long[2]; // rows, deletes written by the job
    topics.scan(
        plan.topicName(),
        record -> {
          long mark = marks.getOrDefault(record.partition(), 0L);
          if (record.offset() >= mark) {
            written[record.value() == null ? 1 : 0]++;
          }
          if (record.key() != null) {
            newest.put(new Key(record.partition(), ByteBuffer.wrap(record.key())), record);
          }
        });
    RecordValues values = new RecordValues(registry);
    List<Topics.KeyAt> stale = new ArrayList<>();
    for (Topics.TopicRecord record : newest.values()) {
      boolean before = record.offset() < marks.getOrDefault(record.partition(), 0L);
      if (before && record.value() != null && inPartition(values, record, r.partition())) {
        stale.add(new Topics.KeyAt(record.partition(), record.key()));
      }
    }
    topics.tombstones(plan.topicName(), stale);
    long scanMillis = (System.nanoTime() - scanStart) / 1_000_000;
    Instant end = clock.instant();
    TableRefresh done =
        r.toBuilder()
            .state(TableRefresh.State.SUCCEEDED)
            .ended(end, written[0], written[1] + stale.size(), null)
            .build();
    // The refresh SUCCEEDED, its event and the table's status are written as one: whoever sees
    // it SUCCEEDED (a caller waiting on it) sees the rest too.
    Next next = p.atomically(() -> succeeded(p, r, done, end, written, stale.size(), scanMillis));
    p.refreshEnded("succeeded", took(r, end));
    return next;
  }

  private Next succeeded(
      ReconcilePass p,
      TableRefresh r,
      TableRefresh done,
      Instant end,
      long[] written,
      int stale,
      long scanMillis) {
    ledger.save(done);
    String message =
        "Refresh #"
            + r.number()
            + " ("
            + describe(r)
            + ") succeeded in "
            + Duration.between(r.startedAt() != null ? r.startedAt() : end, end).toMillis()
            + " ms: "
            + written[0]
            + " rows written, "
            + (written[1] + stale)
            + " tombstones (keys that left the result; the scan of the topic for them took "
            + scanMillis
            + " ms), sources read up to "
            + r.sourceBounds();
    p.event("NORMAL", "RefreshSucceeded", message);
    TableStatus s =
        p.status.toBuilder()
            .failures(0)
            .detail(null)
            .job(null, null)
            .build()
            .with(TableStatus.JOB_RUNNING, false, Reason.Refreshed, message);
    p.save(p.phase == Phase.STOPPED ? Phase.STOPPED : Phase.RUNNING, s, null);
    return Next.soon();
  }

  /**
   * A run failed: tried again from the same bounds after a backoff; after {@link
   * Reconciler#MAX_FAILURES} failures in a row the refresh has FAILED and the table is suspended
   * (its schedule paused) with the cause, until RESUME.
   */
  private Next attemptFailed(ReconcilePass p, PipelinePlan plan, TableRefresh r, String cause) {
    int failures = p.status.consecutiveFailures() + 1;
    Instant now = clock.instant();
    // A FAIL UPDATE expectation failed: the same rows would fail it again, so no retry.
    boolean violation = cause.contains(ExpectationCounts.VIOLATION);
    if (failures >= Reconciler.MAX_FAILURES || violation) {
      ledger.save(
          r.toBuilder().state(TableRefresh.State.FAILED).ended(now, null, null, cause).build());
      p.refreshEnded("failed", took(r, now));
      String message =
          (violation
                  ? "Suspended: a FAIL UPDATE expectation failed; cause: "
                  : "Suspended after "
                      + failures
                      + " failed refresh attempts in a row; last cause: ")
              + cause
              + ". ALTER MATERIALIZED TABLE ... RESUME to refresh again";
      p.event("WARNING", violation ? "ExpectationViolated" : "RefreshRetriesExhausted", message);
      p.step("schedule-pause");
      schedules.ensure(p.table.id(), schedule(RefreshSchedule.of(plan.effective())), true);
      TableStatus s =
          p.stoppedTrying(
              failures,
              cause,
              violation ? Reason.ExpectationViolated : Reason.RetriesExhausted,
              message);
      return p.save(Phase.FAILED, s, p.resync());
    }
    Duration backoff = Reconciler.failureBackoff(failures);
    p.refreshEnded("retried", took(r, now));
    ledger.save(
        r.toBuilder()
            .state(TableRefresh.State.QUEUED)
            .attempt(r.attempt() + 1, now.plus(backoff))
            .job(null, null, false)
            .error(cause)
            .build());
    p.event(
        "WARNING",
        "RefreshFailed",
        "Refresh #"
            + r.number()
            + " attempt "
            + (r.attempt() + 1)
            + " failed: "
            + cause
            + "; trying again from the same bounds in "
            + backoff.toMillis()
            + " ms");
    TableStatus s =
        p.status.toBuilder()
            .failures(failures)
            .detail(cause)
            .job(null, null)
            .build()
            .with(TableStatus.JOB_RUNNING, false, Reason.JobFailed, cause);
    p.save(p.phase == Phase.RUNNING ? Phase.DEGRADED : p.phase, s, null);
    return new Next(backoff, true);
  }

  /** How long the refresh has run: from its first attempt's start (zero if none) to {@code end}. */
  private static Duration took(TableRefresh r, Instant end) {
    return r.startedAt() == null ? Duration.ZERO : Duration.between(r.startedAt(), end);
  }

  /** What the scheduler is given for a schedule. */
  static RefreshSchedules.Schedule schedule(RefreshSchedule s) {
    return new RefreshSchedules.Schedule(s.cron().orElse(null), s.period(), s.anchor(), s.zone());
  }

  /** Before a drop, a switch to CONTINUOUS: the schedule goes, a running refresh is cancelled. */
  boolean stop(ReconcilePass p, String why) {
    p.step("schedule-remove");
    schedules.remove(p.table.id());
    p.status = p.status.toBuilder().refreshScheduled(false).build();
    ledger.cancelQueued(p.table.id(), why);
    boolean cancelling = false;
    for (JobSummary job : p.overview) {
      if (job.name().startsWith(prefix(p.table)) && !job.state().terminal()) {
        if (job.state() != JobState.CANCELLING) {
          p.step("refresh-cancel");
          jobs.cancel(job.id());
          p.event("NORMAL", "RefreshCancelled", "Cancelled refresh job " + job.id() + ": " + why);
        }
        cancelling = true; // looked at again until the job has ended
      }
    }
    ledger
        .active(p.table.id())
        .ifPresent(
            r ->
                ledger.save(
                    r.toBuilder()
                        .state(TableRefresh.State.CANCELLED)
                        .ended(clock.instant(), null, null, why)
                        .build()));
    return cancelling;
  }

  private List<String> sourceTopics(ReconcilePass p) {
    List<String> names = new ArrayList<>();
    for (Statement.CreateSourceTable source :
        planner.sourceDeclarations(p.table.name(), p.table.spec().definition().query())) {
      String topic = source.options().get("topic");
      if (topic != null && !names.contains(topic)) {
        names.add(topic);
      }
    }
    return names;
  }

  /** Each Kafka source read from its beginning up to the offsets the refresh recorded. */
  private static Map<String, String> bounded(
      Map<String, String> options, Map<String, Map<Integer, Long>> bounds) {
    Map<String, String> extra = new LinkedHashMap<>();
    Map<Integer, Long> offsets = bounds.get(options.get("topic"));
    if (offsets == null) {
      return extra;
    }
    if ("kafka".equals(options.get("connector"))) {
      extra.put("scan.startup.mode", "earliest-offset");
    }
    extra.put("scan.bounded.mode", "specific-offsets");
    extra.put("scan.bounded.specific-offsets", PipelinePlan.specificOffsets(offsets));
    return extra;
  }

  private static boolean inPartition(
      RecordValues values, Topics.TopicRecord record, Map<String, String> partition) {
    if (partition.isEmpty()) {
      return true;
    }
    if (!(values.decode(record.value()) instanceof Map<?, ?> row)) {
      return false;
    }
    for (Map.Entry<String, String> e : partition.entrySet()) {
      if (!Objects.equals(String.valueOf(row.get(e.getKey())), e.getValue())) {
        return false;
      }
    }
    return true;
  }

  static String describe(TableRefresh r) {
    return r.trigger()
        + (r.scheduledAt() != null ? " for " + r.scheduledAt() : "")
        + (r.partition().isEmpty() ? ", whole table" : ", partition " + r.partition());
  }

  /** A key in the partition it was written to. */
  private record Key(int partition, ByteBuffer bytes) {}
}
