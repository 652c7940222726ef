package dev.tributary.reconcile;

import dev.tributary.system.Json;
import dev.tributary.table.Phase;
import dev.tributary.table.TableStatus;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The reconciler on /actuator/prometheus: tables per phase, pass duration by outcome, the tables'
 * events by type and reason (job failures and restarts, rollbacks, failed operations), and per
 * table the age of the newest checkpoint the reconciler has seen and of the last savepoint, and the
 * rows each expectation passed and failed.
 */
public class ReconcileMetrics {

  /** No metrics (tests and tools). */
  public static final ReconcileMetrics NONE = new ReconcileMetrics(null, null);

  private final MeterRegistry registry;
  private final JdbcTemplate jdbc;
  private final Map<Phase, AtomicLong> phases = new EnumMap<>(Phase.class);
  private final MultiGauge checkpointAge;
  private final MultiGauge savepointAge;
  private final MultiGauge freshnessLag;
  private final MultiGauge expectationRows;
  private volatile long lastRefresh = System.nanoTime() - Duration.ofMinutes(1).toNanos();

  public ReconcileMetrics(MeterRegistry registry, JdbcTemplate jdbc) {
    this.registry = registry;
    this.jdbc = jdbc;
    if (registry != null) {
      for (Phase phase : Phase.values()) {
        AtomicLong count = new AtomicLong();
        phases.put(phase, count);
        registry.gauge("tributary.tables", Tags.of("phase", phase.name()), count);
      }
      checkpointAge =
          MultiGauge.builder("tributary.table.checkpoint.age")
              .description(
                  "Seconds since the newest completed checkpoint the reconciler has seen of the"
                      + " table's running job (it asks once per checkpoint interval)")
              .baseUnit("seconds")
              .register(registry);
      savepointAge =
          MultiGauge.builder("tributary.table.savepoint.age")
              .description("Seconds since the table's last savepoint")
              .baseUnit("seconds")
              .register(registry);
      freshnessLag =
          MultiGauge.builder("tributary.table.freshness.lag")
              .description(
                  "How far behind the table's content is, in seconds: for a FULL table, since the"
                      + " bound of its last successful refresh; for a continuous one, since its"
                      + " last completed checkpoint the reconciler has seen. Compare with its FRESHNESS")
              .baseUnit("seconds")
              .register(registry);
      expectationRows =
          MultiGauge.builder("tributary.expectation.records")
              .description(
                  "Rows a table's expectation (CONSTRAINT ... EXPECT) passed or failed, summed over"
                      + " the jobs of the table or flow, as their counters were last read")
              .register(registry);
    } else {
      expectationRows = null;
      checkpointAge = null;
      savepointAge = null;
      freshnessLag = null;
    }
  }

  /** One pass over one table: how long it took and how it ended (ok, failed, claim_lost, error). */
  void pass(Duration took, String outcome) {
    if (registry != null) {
      Timer.builder("tributary.reconcile.pass")
          .tag("outcome", outcome)
          .register(registry)
          .record(took);
    }
  }

  /**
   * An event of a table's log, by type and reason: WARNING JobFailed counts job failures (each
   * followed by a restart or by FAILED), OperationFailed, SavepointFailed, EvolutionRolledBack,
   * DuplicateJob and WaitingForTaskSlots the trouble the reconciler met.
   */
  void event(String type, String reason) {
    if (registry != null) {
      Counter.builder("tributary.table.events")
          .tag("type", type)
          .tag("reason", reason)
          .register(registry)
          .increment();
    }
  }

  /** The number of tables in each phase, read from the store at most every 5 seconds. */
  void refreshPhases() {
    long now = System.nanoTime();
    if (jdbc == null || now - lastRefresh < Duration.ofSeconds(5).toNanos()) {
      return;
    }
    lastRefresh = now;
    phases.values().forEach(c -> c.set(0));
    jdbc.query(
        "SELECT phase, count(*) AS n FROM materialized_table WHERE flow_of IS NULL GROUP BY phase",
        rs -> {
          phases.get(Phase.valueOf(rs.getString("phase"))).set(rs.getLong("n"));
        });
    if (checkpointAge == null) {
      return;
    }
    List<MultiGauge.Row<?>> checkpoints = new ArrayList<>();
    List<MultiGauge.Row<?>> savepoints = new ArrayList<>();
    List<MultiGauge.Row<?>> lags = new ArrayList<>();
    jdbc.query(
        """
        SELECT c.name || '.' || d.name || '.' || t.name AS qualified, t.phase,
               t.status -> 'checkpoint' ->> 'completedAt' AS checkpoint_at,
               t.status ->> 'savepointAt' AS savepoint_at,
               coalesce((t.status ->> 'refreshScheduled')::boolean, false) AS full_refresh,
               (SELECT max(r.bounds_at) FROM table_refresh r
                WHERE r.table_id = t.id AND r.state = 'SUCCEEDED') AS refreshed_at
        FROM materialized_table t JOIN catalog_database d ON d.id = t.database_id
          JOIN catalog c ON c.id = d.catalog_id
        WHERE t.phase IN ('RUNNING', 'DEGRADED', 'ALTERING', 'STOPPING', 'STOPPED')
          AND t.flow_of IS NULL""",
        rs -> {
          Tags table = Tags.of("table", rs.getString("qualified"));
          age(rs.getString("checkpoint_at"))
              .ifPresent(at -> checkpoints.add(MultiGauge.Row.of(table, () -> secondsSince(at))));
          age(rs.getString("savepoint_at"))
              .ifPresent(at -> savepoints.add(MultiGauge.Row.of(table, () -> secondsSince(at))));
          Timestamp refreshed = rs.getTimestamp("refreshed_at");
          if (rs.getBoolean("full_refresh")) {
            if (refreshed != null) {
              Instant at = refreshed.toInstant();
              lags.add(MultiGauge.Row.of(table, () -> secondsSince(at)));
            }
          } else if ("RUNNING".equals(rs.getString("phase"))) {
            age(rs.getString("checkpoint_at"))
                .ifPresent(at -> lags.add(MultiGauge.Row.of(table, () -> secondsSince(at))));
          }
        });
    checkpointAge.register(checkpoints, true);
    savepointAge.register(savepoints, true);
    freshnessLag.register(lags, true);
    List<MultiGauge.Row<?>> quality = new ArrayList<>();
    jdbc.query(
        """
        SELECT c.name || '.' || d.name || '.' || coalesce(p.name, t.name) AS qualified,
               CASE WHEN t.flow_of IS NULL THEN '' ELSE t.name END AS flow,
               t.status -> 'quality' AS quality
        FROM materialized_table t JOIN catalog_database d ON d.id = t.database_id
          JOIN catalog c ON c.id = d.catalog_id
          LEFT JOIN materialized_table p ON p.id = t.flow_of
        WHERE t.status -> 'quality' IS NOT NULL AND jsonb_typeof(t.status -> 'quality') = 'object'""",
        rs -> {
          TableStatus.Quality q = Json.read(rs.getString("quality"), TableStatus.Quality.class);
          for (TableStatus.Count c : q.totals()) {
            Tags tags =
                Tags.of(
                    "table", rs.getString("qualified"),
                    "flow", rs.getString("flow"),
                    "expectation", c.name());
            quality.add(MultiGauge.Row.of(tags.and("result", "passed"), c.passed()));
            quality.add(MultiGauge.Row.of(tags.and("result", "failed"), c.failed()));
          }
        });
    expectationRows.register(quality, true);
  }

  /** An instant of the stored status (ISO-8601, as the status JSON writes it). */
  private static Optional<Instant> age(String stored) {
    return stored == null || stored.isBlank()
        ? Optional.empty()
        : Optional.of(Instant.parse(stored));
  }

  private static double secondsSince(Instant at) {
    return Duration.between(at, Instant.now()).toMillis() / 1000.0;
  }
}
