package dev.tributary.table;

import dev.tributary.system.Json;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import tools.jackson.core.type.TypeReference;

/**
 * The refreshes of FULL tables in PostgreSQL ({@code table_refresh}). Two unique indexes keep the
 * promises: at most one active (queued or running) refresh per table, and a schedule's slot
 * recorded once however often it fires. A request that would break either is not recorded.
 */
@Component
public class RefreshLedger {

  private static final TypeReference<Map<String, Map<Integer, Long>>> BOUNDS =
      new TypeReference<>() {};
  private static final TypeReference<Map<Integer, Long>> MARKS = new TypeReference<>() {};
  private static final TypeReference<Map<String, String>> PARTITION = new TypeReference<>() {};

  private final JdbcTemplate jdbc;
  private final RefreshWaits waits;

  public RefreshLedger(JdbcTemplate jdbc, RefreshWaits waits) {
    this.jdbc = jdbc;
    this.waits = waits;
  }

  /**
   * Records a refresh of the table's current definition to run, and makes the table due for the
   * reconciler; empty when the table has an active refresh already (or, for a scheduled one, when
   * its slot was recorded before).
   */
  public Optional<TableRefresh> request(
      UUID table,
      TableRefresh.Trigger trigger,
      Instant scheduledAt,
      Map<String, String> partition) {
    UUID id = UUID.randomUUID();
    int rows =
        jdbc.update(
            """
            INSERT INTO table_refresh (id, table_id, number, trigger, scheduled_at, partition_spec,
                definition_version)
            SELECT ?::uuid, ?::uuid, coalesce(max(number), 0) + 1, ?::text, ?::timestamptz, ?::jsonb,
                (SELECT coalesce(max(version), 0) FROM materialized_table_version WHERE table_id = ?)
            FROM table_refresh WHERE table_id = ?
            ON CONFLICT DO NOTHING""",
            id,
            table,
            trigger.name(),
            timestamp(scheduledAt),
            Json.write(partition),
            table,
            table);
    if (rows == 0) {
      return Optional.empty();
    }
    jdbc.update(
        "UPDATE materialized_table SET next_attempt_at = now() WHERE id = ? AND next_attempt_at >"
            + " now()",
        table);
    return find(id);
  }

  /**
   * Records a manual refresh to wait behind the table's active one; empty when one waits already.
   */
  public Optional<TableRefresh> requestWaiting(UUID table, Map<String, String> partition) {
    UUID id = UUID.randomUUID();
    int rows =
        jdbc.update(
            """
            INSERT INTO table_refresh (id, table_id, number, trigger, partition_spec,
                definition_version, state)
            SELECT ?::uuid, ?::uuid, coalesce(max(number), 0) + 1, 'MANUAL', ?::jsonb,
                (SELECT coalesce(max(version), 0) FROM materialized_table_version WHERE table_id = ?),
                'WAITING'
            FROM table_refresh WHERE table_id = ?
            ON CONFLICT DO NOTHING""",
            id,
            table,
            Json.write(partition),
            table,
            table);
    return rows == 0 ? Optional.empty() : find(id);
  }

  /** The manual refresh waiting behind the active one, if any. */
  public Optional<TableRefresh> waiting(UUID table) {
    return one("SELECT * FROM table_refresh WHERE table_id = ? AND state = 'WAITING'", table);
  }

  /**
   * Queues the waiting refresh when no refresh is active; true if it did. Run by the table's
   * reconcile pass once the active refresh has ended. (A manual request racing it for the active
   * slot loses nothing: whichever comes second finds the slot taken and waits or is answered.)
   */
  public boolean promoteWaiting(UUID table) {
    try {
      return jdbc.update(
              """
              UPDATE table_refresh SET state = 'QUEUED', not_before = now()
              WHERE table_id = ? AND state = 'WAITING' AND NOT EXISTS (
                  SELECT 1 FROM table_refresh a
                  WHERE a.table_id = ? AND a.state IN ('QUEUED', 'RUNNING'))""",
              table,
              table)
          > 0;
    } catch (DuplicateKeyException e) {
      return false; // an active refresh was recorded at the same moment; looked at again later
    }
  }

  public Optional<TableRefresh> find(UUID id) {
    return one("SELECT * FROM table_refresh WHERE id = ?", id);
  }

  /** The table's refresh numbered {@code number}. */
  public Optional<TableRefresh> find(UUID table, long number) {
    return one("SELECT * FROM table_refresh WHERE table_id = ? AND number = ?", table, number);
  }

  /** The table's queued or running refresh. */
  public Optional<TableRefresh> active(UUID table) {
    return one(
        "SELECT * FROM table_refresh WHERE table_id = ? AND state IN ('QUEUED', 'RUNNING')", table);
  }

  /** The newest refresh that succeeded, if any. */
  public Optional<TableRefresh> lastSucceeded(UUID table) {
    return one(
        """
        SELECT * FROM table_refresh WHERE table_id = ? AND state = 'SUCCEEDED'
        ORDER BY number DESC LIMIT 1""",
        table);
  }

  /** Newest first, numbered below {@code before}. */
  public List<TableRefresh> pageBefore(UUID table, long before, int limit) {
    return jdbc.query(
        "SELECT * FROM table_refresh WHERE table_id = ? AND number < ? ORDER BY number DESC"
            + " LIMIT ?",
        RefreshLedger::row,
        table,
        before,
        limit);
  }

  public long count(UUID table) {
    Long n =
        jdbc.queryForObject(
            "SELECT count(*) FROM table_refresh WHERE table_id = ?", Long.class, table);
    return n == null ? 0 : n;
  }

  /** Writes what a run changed (state, attempt, bounds, job, outcome). */
  public void save(TableRefresh r) {
    jdbc.update(
        """
        UPDATE table_refresh SET state = ?, attempt = ?, not_before = ?::timestamptz,
            source_bounds = ?::jsonb, bounds_at = ?::timestamptz, sink_marks = ?::jsonb,
            pipeline_name = ?::text, job_id = ?::text, submitted = ?,
            started_at = ?::timestamptz, ended_at = ?::timestamptz, rows_written = ?::bigint,
            tombstones_written = ?::bigint, error = ?::text
        WHERE id = ?""",
        r.state().name(),
        r.attempt(),
        timestamp(r.notBefore()),
        r.sourceBounds() == null ? null : Json.write(r.sourceBounds()),
        timestamp(r.boundsAt()),
        r.sinkMarks() == null ? null : Json.write(r.sinkMarks()),
        r.pipelineName(),
        r.jobId(),
        r.submitted(),
        timestamp(r.startedAt()),
        timestamp(r.endedAt()),
        r.rowsWritten(),
        r.tombstonesWritten(),
        r.error(),
        r.id());
    if (r.state().ended()) {
      waits.changed(); // waiters answer at a refresh's end only: its bounds or job wake no one
    }
  }

  /**
   * Ends the table's queued and waiting refreshes that never started (a drop, a switch to
   * CONTINUOUS).
   */
  public int cancelQueued(UUID table, String why) {
    int cancelled =
        jdbc.update(
            """
            UPDATE table_refresh SET state = 'CANCELLED', ended_at = now(), error = ?
            WHERE table_id = ? AND state IN ('QUEUED', 'WAITING') AND NOT submitted""",
            why,
            table);
    if (cancelled > 0) {
      waits.changed();
    }
    return cancelled;
  }

  private Optional<TableRefresh> one(String sql, Object... args) {
    return jdbc.query(sql, RefreshLedger::row, args).stream().findFirst();
  }

  private static TableRefresh row(ResultSet rs, int n) throws SQLException {
    return new TableRefresh(
        rs.getObject("id", UUID.class),
        rs.getObject("table_id", UUID.class),
        rs.getLong("number"),
        TableRefresh.Trigger.valueOf(rs.getString("trigger")),
        instant(rs.getTimestamp("scheduled_at")),
        Json.read(rs.getString("partition_spec"), PARTITION),
        rs.getLong("definition_version"),
        TableRefresh.State.valueOf(rs.getString("state")),
        rs.getInt("attempt"),
        instant(rs.getTimestamp("not_before")),
        rs.getString("source_bounds") == null
            ? null
            : Json.read(rs.getString("source_bounds"), BOUNDS),
        instant(rs.getTimestamp("bounds_at")),
        rs.getString("sink_marks") == null ? null : Json.read(rs.getString("sink_marks"), MARKS),
        rs.getString("pipeline_name"),
        rs.getString("job_id"),
        rs.getBoolean("submitted"),
        instant(rs.getTimestamp("requested_at")),
        instant(rs.getTimestamp("started_at")),
        instant(rs.getTimestamp("ended_at")),
        (Long) rs.getObject("rows_written"),
        (Long) rs.getObject("tombstones_written"),
        rs.getString("error"));
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }

  private static Timestamp timestamp(Instant i) {
    return i == null ? null : Timestamp.from(i);
  }
}
