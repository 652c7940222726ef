package dev.tributary.table;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * One refresh of a FULL table, as recorded in {@code table_refresh}: why it ran, the slot of the
 * schedule it is for, the partition it rewrites ({@code {}}: the whole table), the offsets it read
 * its sources up to, the job that ran it and what it wrote. Bounds, marks and the job's name are
 * recorded before the job is submitted, so a restarted service follows the same run.
 */
public record TableRefresh(
    UUID id,
    UUID tableId,
    long number,
    Trigger trigger,
    Instant scheduledAt,
    Map<String, String> partition,
    long definitionVersion,
    State state,
    int attempt,
    Instant notBefore,
    Map<String, Map<Integer, Long>> sourceBounds,
    Instant boundsAt,
    Map<Integer, Long> sinkMarks,
    String pipelineName,
    String jobId,
    boolean submitted,
    Instant requestedAt,
    Instant startedAt,
    Instant endedAt,
    Long rowsWritten,
    Long tombstonesWritten,
    String error) {

  /** Why a refresh ran. */
  public enum Trigger {
    /** A firing of the table's schedule. */
    SCHEDULE,
    /** The one run for the slots missed while no replica was up (not one per missed slot). */
    CATCH_UP,
    /** ALTER MATERIALIZED TABLE ... REFRESH, or POST .../refreshes. */
    MANUAL,
    /** {@code 'refresh.on-create' = 'true'}. */
    ON_CREATE
  }

  /**
   * Where a refresh is. QUEUED and RUNNING are active: a table has at most one active refresh. A
   * manual refresh asked for while one is active is WAITING behind it (at most one per table), and
   * QUEUED when that one ends.
   */
  public enum State {
    WAITING,
    QUEUED,
    RUNNING,
    SUCCEEDED,
    FAILED,
    CANCELLED;

    public boolean active() {
      return this == QUEUED || this == RUNNING;
    }

    /** SUCCEEDED, FAILED or CANCELLED: the refresh will not change again. */
    public boolean ended() {
      return this == SUCCEEDED || this == FAILED || this == CANCELLED;
    }
  }

  public TableRefresh {
    partition = partition == null ? Map.of() : Map.copyOf(partition);
  }

  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Copy-with for the fields a run changes. */
  public static final class Builder {
    private final TableRefresh r;
    private State state;
    private int attempt;
    private Instant notBefore;
    private Map<String, Map<Integer, Long>> sourceBounds;
    private Instant boundsAt;
    private Map<Integer, Long> sinkMarks;
    private String pipelineName;
    private String jobId;
    private boolean submitted;
    private Instant startedAt;
    private Instant endedAt;
    private Long rowsWritten;
    private Long tombstonesWritten;
    private String error;

    private Builder(TableRefresh r) {
      this.r = r;
      state = r.state;
      attempt = r.attempt;
      notBefore = r.notBefore;
      sourceBounds = r.sourceBounds;
      boundsAt = r.boundsAt;
      sinkMarks = r.sinkMarks;
      pipelineName = r.pipelineName;
      jobId = r.jobId;
      submitted = r.submitted;
      startedAt = r.startedAt;
      endedAt = r.endedAt;
      rowsWritten = r.rowsWritten;
      tombstonesWritten = r.tombstonesWritten;
      error = r.error;
    }

    public Builder state(State value) {
      state = value;
      return this;
    }

    public Builder attempt(int value, Instant notBeforeValue) {
      attempt = value;
      notBefore = notBeforeValue;
      return this;
    }

    public Builder bounds(
        Map<String, Map<Integer, Long>> sources, Instant at, Map<Integer, Long> marks) {
      sourceBounds = sources;
      boundsAt = at;
      sinkMarks = marks;
      return this;
    }

    public Builder job(String pipeline, String id, boolean isSubmitted) {
      pipelineName = pipeline;
      jobId = id;
      submitted = isSubmitted;
      return this;
    }

    public Builder started(Instant at) {
      startedAt = at;
      return this;
    }

    public Builder ended(Instant at, Long rows, Long tombstones, String errorText) {
      endedAt = at;
      rowsWritten = rows;
      tombstonesWritten = tombstones;
      error = errorText;
      return this;
    }

    public Builder error(String text) {
      error = text;
      return this;
    }

    public TableRefresh build() {
      return new TableRefresh(
          r.id,
          r.tableId,
          r.number,
          r.trigger,
          r.scheduledAt,
          r.partition,
          r.definitionVersion,
          state,
          attempt,
          notBefore,
          sourceBounds,
          boundsAt,
          sinkMarks,
          pipelineName,
          jobId,
          submitted,
          r.requestedAt,
          startedAt,
          endedAt,
          rowsWritten,
          tombstonesWritten,
          error);
    }
  }
}
