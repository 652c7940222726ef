package dev.tributary.plan;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * What a change to a materialized table would do, computed with no side effect: the answer of a dry
 * run and of EXPLAIN, and the check every applied change passes first. A plan with rejections is
 * never applied. {@code autoFallback} says why REFRESH_MODE AUTO chose FULL for a query that cannot
 * run as a stream (null otherwise); the table is then stored with REFRESH_MODE = FULL.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record ChangePlan(
    String table,
    Action action,
    boolean jobRestarts,
    String restart,
    boolean stateDiscarded,
    List<SourceStart> sourceStarts,
    List<ColumnChange> columns,
    List<SubjectCheck> subjects,
    List<ValueChange> changes,
    List<String> rejections,
    List<String> notes,
    List<Warning> warnings,
    String autoFallback) {

  public ChangePlan {
    sourceStarts = List.copyOf(sourceStarts);
    columns = List.copyOf(columns);
    subjects = List.copyOf(subjects);
    changes = List.copyOf(changes);
    rejections = List.copyOf(rejections);
    notes = List.copyOf(notes);
    warnings = warnings == null ? List.of() : List.copyOf(warnings);
  }

  /** What kind of change this is, as the CLI prints it. */
  public enum Action {
    /** A new table: topic, subjects and a job are created. */
    CREATE,
    /** A new job shape: the old job stops with a savepoint and a new one starts. */
    EVOLVE,
    /** Properties change; the job keeps running, or restarts from its savepoint. */
    CHANGE,
    /** Nothing differs from what is stored. */
    UNCHANGED
  }

  /** The same plan, for a definition that AUTO moved to FULL, and why. */
  public ChangePlan withAutoFallback(String why) {
    return new ChangePlan(
        table,
        action,
        jobRestarts,
        restart,
        stateDiscarded,
        sourceStarts,
        columns,
        subjects,
        changes,
        rejections,
        notes,
        warnings,
        why);
  }

  public boolean rejected() {
    return !rejections.isEmpty();
  }

  /**
   * Something the change does that the table's readers will see and that the plan carries out as
   * asked, yet may not be what was meant: a machine-readable code and the text that explains it and
   * names the ways out. A plan with warnings is applied like any other; the CLI's {@code
   * --fail-on-warning} refuses it.
   */
  public record Warning(String code, String message) {
    /** An evolution of a stateful query discards the state that its values were computed from. */
    public static final String STATE_DISCARDED = "STATE_DISCARDED";

    /**
     * The service cannot read the savepoint storage, so an evolution continues its sources from
     * their committed offsets, which can repeat the rows of the last checkpoint interval.
     */
    public static final String OFFSETS_FROM_COMMITTED = "OFFSETS_FROM_COMMITTED";
  }

  /**
   * Where the new job reads a source from; for a read from the beginning of a Kafka source, {@code
   * replayOffsets}: the offsets its topic holds now, what the new job reads again (null otherwise).
   */
  public record SourceStart(String source, String from, Long replayOffsets) {
    public SourceStart(String source, String from) {
      this(source, from, null);
    }
  }

  /** A column that the change adds, removes or retypes. */
  public record ColumnChange(String column, String change, String before, String after) {}

  /** Whether the registry accepts the new schema of a subject, under its compatibility level. */
  public record SubjectCheck(String subject, String change, Boolean compatible, String message) {}

  /** A property that changes: a topic config, the key, the changelog mode, the freshness... */
  public record ValueChange(String property, String before, String after) {}
}
