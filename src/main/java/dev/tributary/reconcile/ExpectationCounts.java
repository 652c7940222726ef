package dev.tributary.reconcile;

import dev.tributary.plan.PipelinePlan;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkJobs.JobSummary;
import dev.tributary.sql.DeadLetterTable;
import dev.tributary.sql.TableSchema;
import dev.tributary.table.TableStatus;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What a running job's expectations and guarded formats counted, read from the JobManager's metric
 * store at each pass and summed over the table's jobs ({@code status.quality}, {@code
 * status.skipped}); and the markers by which a failure cause names a violated expectation.
 */
final class ExpectationCounts {

  private final FlinkJobs jobs;
  private final Clock clock;

  ExpectationCounts(FlinkJobs jobs, Clock clock) {
    this.jobs = jobs;
    this.clock = clock;
  }

  /** Expectations' counters of a running job, folded into the table's counts. */
  void countExpectations(
      ReconcilePass p, PipelinePlan plan, JobSummary job, TableStatus.Builder b) {
    if (plan.expectations().isEmpty()) {
      return;
    }
    Map<String, Long> counters = jobs.operatorCounters(job.id(), EXPECTATION_METRICS);
    List<TableStatus.Count> read = new ArrayList<>();
    for (TableSchema.Expectation e : plan.expectations()) {
      String metric = metricName(e.name());
      read.add(
          new TableStatus.Count(
              e.name(),
              counters.getOrDefault(metric + ".passed", 0L),
              counters.getOrDefault(metric + ".failed", 0L)));
    }
    Optional<TableStatus.Quality> after =
        TableStatus.Quality.after(p.status.quality(), job.id(), read, clock.instant());
    if (after.isEmpty()) {
      return;
    }
    TableStatus.Quality next = after.get();
    b.quality(next);
    p.event(
        "NORMAL",
        "ExpectationProgress",
        next.totals().stream()
            .map(c -> c.name() + ": " + c.passed() + " passed, " + c.failed() + " failed")
            .collect(Collectors.joining("; ")));
  }

  /** The metric group the expectations function counts in (dev.tributary.flinkformat). */
  static final String EXPECTATION_METRICS = "tributary_expectation";

  /** An expectation's name as the function names its metric group (see Expectations). */
  static String metricName(String name) {
    return name.replaceAll("[^A-Za-z0-9_]", "_");
  }

  /** The marker of a FAIL UPDATE violation in a job's failure cause. */
  static final String VIOLATION = "EXPECTATION_VIOLATION";

  /** The marker of an unreadable source record under 'error-handling.mode' = 'fail'. */
  static final String UNREADABLE = "DESERIALIZATION_ERROR";

  /** The metric group of the guarded format's counter of skipped records. */
  static final String ERROR_METRICS = "tributary_error_handling";

  /**
   * Records the guarded format skipped, or sent to the dead-letter table, in a running job, summed
   * over the table's jobs.
   */
  void countSkipped(ReconcilePass p, PipelinePlan plan, JobSummary job, TableStatus.Builder b) {
    String mode = plan.effective().options().get("error-handling.mode");
    boolean logs = "log".equals(mode);
    if (!"ignore".equals(mode) && !logs) {
      return;
    }
    String counter = logs ? "logged" : "skipped";
    long skipped = jobs.operatorCounters(job.id(), ERROR_METRICS).getOrDefault(counter, 0L);
    Optional<TableStatus.Quality> after =
        TableStatus.Quality.after(
            p.status.skipped(),
            job.id(),
            List.of(
                new TableStatus.Count(logs ? TableStatus.DEAD_LETTERED : "skipped", 0, skipped)),
            clock.instant());
    if (after.isEmpty()) {
      return;
    }
    TableStatus.Quality next = after.get();
    b.skipped(next);
    long total = next.totals().isEmpty() ? 0 : next.totals().get(0).failed();
    if (total > 0 && logs) {
      p.event(
          "WARNING",
          "RecordsDeadLettered",
          total
              + " source records could not be read and went to the dead-letter table "
              + DeadLetterTable.target(p.table.name(), plan.effective().options()));
    } else if (total > 0) {
      p.event(
          "WARNING",
          "RecordsSkipped",
          total
              + " source records could not be read and were skipped ('error-handling.mode' ="
              + " 'ignore')");
    }
  }
}
