package dev.tributary.table.web;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.tributary.port.FlinkSql;
import dev.tributary.sql.TableOptions;
import dev.tributary.table.Freshness;
import dev.tributary.table.MaterializedTable;
import dev.tributary.table.Phase;
import dev.tributary.table.TableStatus;
import dev.tributary.table.TableStatus.Reason;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A table's {@code status} as the API serves it, after the Kubernetes API conventions: phase,
 * observedGeneration and conditions first, then what the reconciler observed, each part typed. The
 * reconciler's own bookkeeping in {@link TableStatus} (savepoint triggers, stop requests, failure
 * counts, versions it validated) is not served: it describes how the work is done, not the world.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Schema(
    name = "TableStatus",
    description =
        "What the reconciler observes. Parts that do not apply (no topic yet, no job while"
            + " stopped) are left out.")
record TableStatusView(
    @Schema(description = "Where the table is in its life; DELETING once a drop is asked")
        Phase phase,
    @Schema(
            description =
                "The generation the world last matched; wait for it to equal"
                    + " metadata.generation after a change")
        long observedGeneration,
    @Schema(
            description =
                "One entry per aspect of readiness: Ready, TopicReady, SchemaRegistered,"
                    + " JobRunning, Fresh")
        List<Condition> conditions,
    @Schema(description = "The last problem, or what the table waits on, in words") String message,
    @Schema(description = "How fresh the content is (materialized tables)")
        Freshness.Summary refresh,
    Topic topic,
    Subjects subjects,
    @Schema(description = "The columns the query produces, as Flink types them")
        ResultSchema schema,
    @Schema(description = "The Flink job that writes the topic now") Job job,
    @Schema(description = "The savepoint the last stop or evolution took") Snapshot lastSavepoint,
    @Schema(description = "The newest completed checkpoint the reconciler saw")
        Snapshot lastCheckpoint,
    @Schema(description = "An evolution under way: the new job proves itself or is rolled back")
        Evolution evolution,
    @Schema(description = "The one run of an INSERT ONCE flow") Run run,
    @Schema(
            description =
                "Attempts that failed in a row (job submissions, a failing job); at the retry"
                    + " limit the table is FAILED. 0 once one succeeds")
        int consecutiveFailures,
    @Schema(
            description =
                "Source records the jobs could not read and skipped ('error-handling.mode' ="
                    + " 'ignore'), summed over the table's jobs; absent without that mode")
        Long recordsSkipped,
    @Schema(
            description =
                "Source records the jobs could not read and wrote to the dead-letter table"
                    + " ('error-handling.mode' = 'log', table 'error-handling.log.target'),"
                    + " summed over the table's jobs; absent without that mode")
        Long recordsDeadLettered) {

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @Schema(name = "Condition", description = "One aspect of readiness, as in Kubernetes")
  record Condition(
      @Schema(example = "Ready") String type,
      @Schema(allowableValues = {"True", "False", "Unknown"}) String status,
      @Schema(description = "Why, from a closed set") Reason reason,
      String message,
      Instant lastTransitionTime,
      @Schema(description = "The table generation this condition was evaluated at")
          Long observedGeneration) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @Schema(name = "TopicStatus", description = "The Kafka topic that holds the table")
  record Topic(
      String name,
      Integer partitions,
      @Schema(description = "How rows are written: the table's changelog.mode option")
          String changelogMode) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @Schema(name = "SubjectsStatus", description = "The schema registry subjects of the topic")
  record Subjects(Subject key, Subject value) {}

  @Schema(name = "SubjectStatus")
  record Subject(
      String subject, @Schema(description = "The registry's schema id") Integer schemaId) {}

  @Schema(name = "ResultSchema")
  record ResultSchema(List<FlinkSql.Column> columns) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @Schema(name = "JobStatus")
  record Job(
      @Schema(description = "The Flink job id") String id,
      @Schema(description = "The pipeline.name the job runs under") String pipelineName,
      Instant startTime,
      @Schema(description = "The checkpoint interval the job runs with, in seconds")
          Double checkpointIntervalSeconds,
      @Schema(description = "What the job started from: a savepoint, a checkpoint, offsets")
          String restoredFrom,
      @Schema(
              description =
                  "The compute pool (Flink cluster) the job was submitted to; the table's"
                      + " 'compute-pool' option says where it is placed")
          String computePool) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @Schema(name = "SnapshotStatus", description = "A savepoint or checkpoint")
  record Snapshot(String path, Instant completedAt) {}

  @Schema(name = "EvolutionStatus")
  record Evolution(
      @Schema(description = "The version the table evolves from; it comes back on a rollback")
          long fromVersion,
      @Schema(description = "The savepoint the old job stopped at") String savepointPath,
      Instant startedAt,
      @Schema(description = "Since when the new job runs; null until it does")
          Instant runningSince) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @Schema(name = "RunStatus")
  record Run(
      String jobId,
      @Schema(description = "SUCCEEDED or FAILED once it ended; absent while it runs") String state,
      @Schema(description = "Rows it wrote") Long rows,
      Instant finishedAt,
      @Schema(description = "The source offsets it reads up to, by topic and partition")
          Map<String, Map<Integer, Long>> bounds) {}

  static TableStatusView of(MaterializedTable t, Freshness.Summary refresh) {
    TableStatus s = t.status();
    long observed = t.getObservedGeneration();
    return new TableStatusView(
        t.isDeletionRequested() ? Phase.DELETING : t.getPhase(),
        observed,
        s.conditions().stream()
            .map(
                c ->
                    new Condition(
                        c.type(),
                        c.status(),
                        c.reason(),
                        c.message(),
                        c.lastTransitionTime(),
                        c.observedGeneration() == null ? observed : c.observedGeneration()))
            .toList(),
        s.detail(),
        refresh,
        s.topic() == null ? null : new Topic(s.topic(), s.partitions(), s.changelogMode()),
        s.keySubject() == null && s.valueSubject() == null
            ? null
            : new Subjects(
                s.keySubject() == null ? null : new Subject(s.keySubject(), s.keySchemaId()),
                s.valueSubject() == null ? null : new Subject(s.valueSubject(), s.valueSchemaId())),
        s.schema().isEmpty() ? null : new ResultSchema(s.schema()),
        s.jobId() == null && s.pipelineName() == null
            ? null
            : new Job(
                s.jobId(),
                s.pipelineName(),
                s.jobStartTime(),
                s.checkpointIntervalMs() > 0 ? s.checkpointIntervalMs() / 1000.0 : null,
                s.restoredFrom(),
                s.computePool() == null ? TableOptions.DEFAULT_POOL : s.computePool()),
        s.savepointPath() == null ? null : new Snapshot(s.savepointPath(), s.savepointAt()),
        s.checkpoint() == null
            ? null
            : new Snapshot(s.checkpoint().path(), s.checkpoint().completedAt()),
        s.evolution() == null
            ? null
            : new Evolution(
                s.evolution().fromVersion(),
                s.evolution().savepointPath(),
                s.evolution().startedAt(),
                s.evolution().runningSince()),
        s.once() == null
            ? null
            : new Run(
                s.once().jobId(),
                s.once().state(),
                s.once().rows(),
                s.once().finishedAt(),
                s.once().bounds()),
        s.consecutiveFailures(),
        counted(s, "skipped"),
        counted(s, TableStatus.DEAD_LETTERED));
  }

  /** What the guarded format counted, when it counted {@code name}. */
  private static Long counted(TableStatus s, String name) {
    if (s.skipped() == null || s.skipped().totals().isEmpty()) {
      return null;
    }
    TableStatus.Count count = s.skipped().totals().get(0);
    return count.name().equals(name) ? count.failed() : null;
  }
}
