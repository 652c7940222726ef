package dev.tributary.reconcile;

import dev.tributary.table.Phase;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The reconciler on /actuator/prometheus: tables per phase, pass duration by outcome, and the
 * tables' events by type and reason (job failures, rollbacks, failed operations).
 */
public class ReconcileMetrics {

  /** No metrics (tests and tools). */
  public static final ReconcileMetrics NONE = new ReconcileMetrics(null, null);

  private final MeterRegistry registry;
  private final JdbcTemplate jdbc;
  private final Map<Phase, AtomicLong> phases = new EnumMap<>(Phase.class);
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
        "SELECT phase, count(*) AS n FROM materialized_table GROUP BY phase",
        rs -> {
          phases.get(Phase.valueOf(rs.getString("phase"))).set(rs.getLong("n"));
        });
  }
}
