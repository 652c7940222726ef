package dev.tributary.reconcile;

import dev.tributary.sql.ObjectName;
import dev.tributary.system.Json;
import dev.tributary.table.Phase;
import dev.tributary.table.TableSpec;
import dev.tributary.table.TableStatus;
import dev.tributary.table.TableWaits;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.tracing.Tracer;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/**
 * {@link ReconcileStore} in PostgreSQL: claiming due rows with a lease (FOR UPDATE SKIP LOCKED, so
 * replicas never work on the same row), writing observed state, the event log, and the final
 * removal of a dropped table. The API never writes the columns written here.
 *
 * <p>A statement that updates many rows (a batch of releases, the watch's marks, the lease
 * heartbeat, the sweep's statuses) locks them first in the order of their ids, in a {@code
 * MATERIALIZED} CTE with {@code ORDER BY id FOR UPDATE}: two such statements on different threads
 * or replicas then never each hold a row the other waits for. Locked in its own order (a join's, an
 * array's), a release and a mark over the same rows deadlocked, and PostgreSQL aborted one. The CTE
 * carries what the update writes, so the update joins the table, by its primary key, to that CTE
 * alone, not to the CTE of the arrays as well.
 */
@Component
public class JdbcReconcileStore implements ReconcileStore {

  /** Each table event is also a log line (logger {@code tributary.events}). */
  private static final Logger EVENTS = LoggerFactory.getLogger("tributary.events");

  private final JdbcTemplate jdbc;
  private final ReconcileMetrics metrics;
  private final TableWaits waits;

  public JdbcReconcileStore(
      JdbcTemplate jdbc,
      ObjectProvider<MeterRegistry> registry,
      ObjectProvider<Tracer> tracer,
      TableWaits waits) {
    this.jdbc = jdbc;
    this.waits = waits;
    this.metrics = new ReconcileMetrics(registry.getIfAvailable(), jdbc, tracer.getIfAvailable());
  }

  /** The reconciler's meters, fed by this store and the worker. */
  public ReconcileMetrics metrics() {
    return metrics;
  }

  @Override
  public List<Claim> claim(String owner, int limit, Duration lease) {
    // The rows are chosen in a CTE of their own: as a subquery of the UPDATE (WHERE id IN (SELECT
    // ... LIMIT ? FOR UPDATE SKIP LOCKED)) PostgreSQL may run the choice more than once in one
    // statement, and a claim of 8 took all 200 rows of an apply being written.
    return jdbc.query(
        """
        WITH due AS MATERIALIZED (
          SELECT id FROM materialized_table
          WHERE next_attempt_at <= now() AND (lease_expires_at IS NULL OR lease_expires_at < now())
          ORDER BY next_attempt_at
          LIMIT ? FOR UPDATE SKIP LOCKED)
        UPDATE materialized_table t SET lease_owner = ?, claim_token = gen_random_uuid(),
          lease_expires_at = now() + (? * interval '1 millisecond')
        FROM due WHERE t.id = due.id
        RETURNING t.id, t.claim_token, t.attempt, t.updated_at""",
        (rs, n) ->
            new Claim(
                rs.getObject("id", UUID.class),
                rs.getObject("claim_token", UUID.class),
                rs.getInt("attempt"),
                rs.getTimestamp("updated_at").toInstant()),
        limit,
        owner,
        lease.toMillis());
  }

  @Override
  public boolean confirm(UUID id, UUID token, Duration lease) {
    return jdbc.update(
            """
            UPDATE materialized_table SET lease_expires_at = now() + (? * interval '1 millisecond')
            WHERE id = ? AND claim_token = ? AND lease_expires_at > now()""",
            lease.toMillis(),
            id,
            token)
        == 1;
  }

  @Override
  public void extend(List<Claim> claims, Duration lease) {
    if (claims.isEmpty()) {
      return;
    }
    jdbc.update(
        connection -> {
          PreparedStatement statement =
              connection.prepareStatement(
                  """
                  WITH locked AS MATERIALIZED (
                    SELECT id FROM materialized_table WHERE claim_token = ANY (?) ORDER BY id FOR UPDATE)
                  UPDATE materialized_table t SET lease_expires_at = now() + (? * interval '1 millisecond')
                  FROM locked WHERE t.id = locked.id AND t.lease_expires_at > now()""");
          statement.setArray(
              1, connection.createArrayOf("uuid", claims.stream().map(Claim::token).toArray()));
          statement.setLong(2, lease.toMillis());
          return statement;
        });
  }

  /**
   * Gives the row back and says when to look again; a spec change made during the pass (a newer
   * generation than the pass saw) makes it due at once. Only the holder of the claim can.
   */
  @Override
  public void release(UUID id, UUID token, long seenGeneration, Duration after, int attempt) {
    jdbc.update(
        """
        UPDATE materialized_table SET lease_owner = NULL, lease_expires_at = NULL, claim_token = NULL, attempt = ?,
          next_attempt_at = CASE WHEN generation > ? THEN now() ELSE now() + (? * interval '1 millisecond') END
        WHERE id = ? AND claim_token = ?""",
        attempt,
        seenGeneration,
        after.toMillis(),
        id,
        token);
  }

  /** One UPDATE for all of them, with the same rules as {@link #release}. */
  @Override
  public void releaseAll(List<Release> releases) {
    if (releases.isEmpty()) {
      return;
    }
    jdbc.update(
        connection -> {
          PreparedStatement statement =
              connection.prepareStatement(
                  """
                  WITH r AS MATERIALIZED (
                    SELECT * FROM unnest(?, ?, ?, ?, ?, ?) AS r(id, token, seen, after_ms, attempt, settled)),
                  locked AS MATERIALIZED (
                    SELECT t.id, r.seen, r.after_ms, r.attempt, r.settled
                    FROM materialized_table t JOIN r ON t.id = r.id AND t.claim_token = r.token
                    ORDER BY t.id FOR UPDATE OF t)
                  UPDATE materialized_table t SET lease_owner = NULL, lease_expires_at = NULL, claim_token = NULL,
                    attempt = l.attempt,
                    next_attempt_at = CASE WHEN t.generation > l.seen THEN now()
                      WHEN l.settled THEN ?
                      ELSE now() + (l.after_ms * interval '1 millisecond') END
                  FROM locked l WHERE t.id = l.id""");
          statement.setObject(7, SETTLED.atOffset(ZoneOffset.UTC));
          statement.setArray(
              1, connection.createArrayOf("uuid", releases.stream().map(Release::id).toArray()));
          statement.setArray(
              2, connection.createArrayOf("uuid", releases.stream().map(Release::token).toArray()));
          statement.setArray(
              3,
              connection.createArrayOf(
                  "bigint", releases.stream().map(Release::seenGeneration).toArray()));
          statement.setArray(
              4,
              connection.createArrayOf(
                  "bigint", releases.stream().map(r -> r.after().toMillis()).toArray()));
          statement.setArray(
              5,
              connection.createArrayOf(
                  "integer", releases.stream().map(Release::attempt).toArray()));
          statement.setArray(
              6,
              connection.createArrayOf(
                  "boolean", releases.stream().map(Release::settled).toArray()));
          return statement;
        });
  }

  @Override
  public boolean beginSweep(String owner, Duration interval) {
    return jdbc.update(
            """
            UPDATE reconcile_sweep SET owner = ?, started_at = now()
            WHERE id = 1 AND started_at <= now() - (? * interval '1 millisecond')""",
            owner,
            interval.toMillis())
        == 1;
  }

  /** The row's transaction id ({@code xmin}) is the stamp: every update of the row changes it. */
  @Override
  public Map<UUID, Long> settled() {
    Map<UUID, Long> settled = new HashMap<>();
    jdbc.query(
        """
        SELECT id, xmin::text::bigint AS stamp FROM materialized_table
        WHERE next_attempt_at = ? AND (lease_expires_at IS NULL OR lease_expires_at < now())""",
        rs -> {
          settled.put(rs.getObject("id", UUID.class), rs.getLong("stamp"));
        },
        SETTLED.atOffset(ZoneOffset.UTC));
    return settled;
  }

  @Override
  public Map<UUID, Long> writeSettled(List<SettledStatus> statuses) {
    Map<UUID, Long> written = new HashMap<>();
    if (statuses.isEmpty()) {
      return written;
    }
    jdbc.query(
        connection -> {
          PreparedStatement statement =
              connection.prepareStatement(
                  """
                  WITH r AS MATERIALIZED (SELECT * FROM unnest(?, ?, ?) AS r(id, stamp, status)),
                  locked AS MATERIALIZED (
                    SELECT t.id, r.status FROM materialized_table t JOIN r ON t.id = r.id
                    WHERE t.xmin::text::bigint = r.stamp AND t.next_attempt_at = ?
                      AND (t.lease_expires_at IS NULL OR t.lease_expires_at < now())
                    ORDER BY t.id FOR UPDATE OF t)
                  UPDATE materialized_table t SET status = l.status::jsonb, updated_at = now()
                  FROM locked l WHERE t.id = l.id
                  RETURNING t.id, t.xmin::text::bigint AS stamp""");
          statement.setArray(
              1,
              connection.createArrayOf("uuid", statuses.stream().map(SettledStatus::id).toArray()));
          statement.setArray(
              2,
              connection.createArrayOf(
                  "bigint", statuses.stream().map(SettledStatus::stamp).toArray()));
          statement.setArray(
              3,
              connection.createArrayOf(
                  "text", statuses.stream().map(x -> Json.write(x.status())).toArray()));
          statement.setObject(4, SETTLED.atOffset(ZoneOffset.UTC));
          return statement;
        },
        rs -> {
          written.put(rs.getObject("id", UUID.class), rs.getLong("stamp"));
        });
    return written;
  }

  @Override
  public int abandon(String owner) {
    return jdbc.update(
        """
        WITH locked AS MATERIALIZED (
          SELECT id FROM materialized_table WHERE lease_owner = ? AND claim_token IS NOT NULL
          ORDER BY id FOR UPDATE)
        UPDATE materialized_table t SET lease_owner = NULL, lease_expires_at = NULL, claim_token = NULL,
          next_attempt_at = now()
        FROM locked WHERE t.id = locked.id AND t.lease_owner = ? AND t.claim_token IS NOT NULL""",
        owner,
        owner);
  }

  private static final String SNAPSHOT =
      """
      SELECT t.id, c.name AS catalog, d.name AS database, t.name, t.topic_name, t.generation, t.spec, t.deletion_requested,
             t.phase, t.status, t.attempt, t.observed_generation, t.flow_of,
             (SELECT max(version) FROM materialized_table_version v WHERE v.table_id = t.id) AS definition_version
      FROM materialized_table t JOIN catalog_database d ON d.id = t.database_id JOIN catalog c ON c.id = d.catalog_id
      """;

  private static TableSnapshot snapshot(ResultSet rs) throws SQLException {
    return new TableSnapshot(
        rs.getObject("id", UUID.class),
        new ObjectName(rs.getString("catalog"), rs.getString("database"), rs.getString("name")),
        rs.getString("topic_name"),
        rs.getLong("generation"),
        rs.getLong("definition_version"),
        Json.read(rs.getString("spec"), TableSpec.class),
        rs.getBoolean("deletion_requested"),
        Phase.valueOf(rs.getString("phase")),
        status(rs.getString("status")),
        rs.getLong("observed_generation"),
        rs.getObject("flow_of", UUID.class));
  }

  @Override
  public Optional<TableSnapshot> load(UUID id) {
    return jdbc.query(SNAPSHOT + "WHERE t.id = ?", (rs, n) -> snapshot(rs), id).stream()
        .findFirst();
  }

  @Override
  public Map<UUID, TableSnapshot> loadAll(Collection<UUID> ids) {
    Map<UUID, TableSnapshot> found = new HashMap<>();
    if (ids.isEmpty()) {
      return found;
    }
    jdbc.query(
        connection -> {
          PreparedStatement statement =
              connection.prepareStatement(SNAPSHOT + "WHERE t.id = ANY (?)");
          statement.setArray(1, connection.createArrayOf("uuid", ids.toArray()));
          return statement;
        },
        rs -> {
          TableSnapshot s = snapshot(rs);
          found.put(s.id(), s);
        });
    return found;
  }

  @Override
  public Instant now() {
    return jdbc.queryForObject("SELECT clock_timestamp()", Timestamp.class).toInstant();
  }

  @Override
  public List<String> dueTopics() {
    return jdbc.queryForList(
        "SELECT topic_name FROM materialized_table WHERE next_attempt_at <= now() AND topic_name IS"
            + " NOT NULL AND NOT deletion_requested",
        String.class);
  }

  /** Current attempt count of a row (for backoff). */
  @Override
  public int attempt(UUID id) {
    Integer attempt =
        jdbc.queryForObject(
            "SELECT attempt FROM materialized_table WHERE id = ?", Integer.class, id);
    return attempt == null ? 0 : attempt;
  }

  /** Writes observed state; callers write only when something changed. */
  @Override
  public void saveStatus(
      UUID id, UUID token, Phase phase, long observedGeneration, TableStatus status) {
    int rows =
        jdbc.update(
            """
            UPDATE materialized_table SET phase = ?, observed_generation = ?, status = ?::jsonb, updated_at = now()
            WHERE id = ? AND (CAST(? AS uuid) IS NULL OR (claim_token = ? AND lease_expires_at > now()))""",
            phase.name(),
            observedGeneration,
            Json.write(status),
            id,
            token,
            token);
    if (rows == 0 && token != null) {
      throw new ClaimLostException(id);
    }
    waits.changed(id); // requests waiting for the table to settle read it again
  }

  @Override
  public void event(UUID id, String type, String reason, String message) {
    metrics.event(id, type, reason);
    if ("WARNING".equals(type)) {
      EVENTS.warn("{} {}: {}", reason, id, message);
    } else {
      EVENTS.info("{} {}: {}", reason, id, message);
    }
    jdbc.update(
        "INSERT INTO table_event (table_id, at, type, reason, message) VALUES (?, ?, ?, ?, ?)",
        id,
        Timestamp.from(Instant.now()),
        type,
        reason,
        message);
  }

  @Override
  public void refreshEnded(UUID id, String outcome, Duration took) {
    metrics.refreshEnded(id, outcome, took);
  }

  /** In one transaction, which every JdbcTemplate of the store's data source joins. */
  @Override
  @Transactional
  public <T> T atomically(Supplier<T> work) {
    return work.get();
  }

  /** The end of a DROP: the definition goes; versions and events stay as history. */
  @Override
  public void markDue(Collection<UUID> ids) {
    if (!ids.isEmpty()) {
      jdbc.update(
          connection -> {
            var statement =
                // To the front of the queue: the claim takes rows by next_attempt_at, and a backlog
                // of new tables (each a submission of seconds) would otherwise keep a table whose
                // job just started from being seen RUNNING until the backlog is done.
                connection.prepareStatement(
                    """
                    WITH locked AS MATERIALIZED (
                      SELECT id FROM materialized_table WHERE id = ANY (?) ORDER BY id FOR UPDATE)
                    UPDATE materialized_table t SET next_attempt_at = LEAST(t.next_attempt_at,
                      (SELECT COALESCE(min(next_attempt_at), now()) FROM materialized_table
                       WHERE next_attempt_at <= now()) - interval '1 millisecond')
                    FROM locked WHERE t.id = locked.id""");
            statement.setArray(1, connection.createArrayOf("uuid", ids.toArray()));
            return statement;
          });
    }
  }

  /**
   * Marks version {@code failed} as failed with the cause, and makes version {@code to}'s
   * definition current again, as a new version: the API's columns are written here, once, because
   * the user's change could not be carried out.
   */
  @Override
  @Transactional
  public void rollBack(UUID id, UUID token, long failed, long to, String cause) {
    int rows =
        jdbc.update(
            """
            UPDATE materialized_table t SET spec = jsonb_set(v.spec, '{stopped}', t.spec -> 'stopped'),
              definition = v.definition, generation = t.generation + 1,
              resource_version = t.resource_version + 1, updated_at = now()
            FROM materialized_table_version v
            WHERE t.id = ? AND v.table_id = t.id AND v.version = ?
              AND (CAST(? AS uuid) IS NULL OR (t.claim_token = ? AND t.lease_expires_at > now()))""",
            id,
            to,
            token,
            token);
    if (rows == 0) {
      throw new ClaimLostException(id); // nothing written: the transaction ends here
    }
    jdbc.update(
        "UPDATE materialized_table_version SET outcome = 'ROLLED_BACK', failure = ? WHERE table_id = ? AND version = ?",
        cause,
        id,
        failed);
    jdbc.update(
        """
        INSERT INTO materialized_table_version (table_id, version, qualified_name, spec, definition, created_at, outcome)
        SELECT t.id, t.generation, v.qualified_name, t.spec, t.definition, now(), 'RESTORED_' || ?
        FROM materialized_table t JOIN materialized_table_version v ON v.table_id = t.id AND v.version = ?
        WHERE t.id = ?""",
        String.valueOf(to),
        to,
        id);
  }

  @Override
  public int pruneEvents(Duration maxAge, int keepPerTable) {
    int old =
        jdbc.update(
            "DELETE FROM table_event WHERE at < now() - (? * interval '1 millisecond')",
            maxAge.toMillis());
    int surplus =
        jdbc.update(
            """
            DELETE FROM table_event e USING (
              SELECT id FROM (
                SELECT id, row_number() OVER (PARTITION BY table_id ORDER BY id DESC) AS n
                FROM table_event) ranked
              WHERE n > ?) gone
            WHERE e.id = gone.id""",
            keepPerTable);
    return old + surplus;
  }

  @Override
  public void delete(UUID id, UUID token) {
    int rows =
        jdbc.update(
            """
            DELETE FROM materialized_table WHERE id = ? AND deletion_requested
              AND (CAST(? AS uuid) IS NULL OR claim_token = ?)""",
            id,
            token,
            token);
    if (rows == 0 && token != null) {
      throw new ClaimLostException(id);
    }
    waits.changed(id); // a request waiting for it answers 404
  }

  @Override
  public List<FlowState> flows(UUID table) {
    return jdbc.query(
        """
        SELECT id, name, phase, status, deletion_requested FROM materialized_table
        WHERE flow_of = ? ORDER BY name""",
        (rs, n) ->
            new FlowState(
                rs.getObject("id", UUID.class),
                rs.getString("name"),
                Phase.valueOf(rs.getString("phase")),
                status(rs.getString("status")),
                rs.getBoolean("deletion_requested")),
        table);
  }

  static TableStatus status(String json) {
    return TableStatus.parse(json);
  }
}
