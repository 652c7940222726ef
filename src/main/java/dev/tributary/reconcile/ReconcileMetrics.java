package dev.tributary.reconcile;

import dev.tributary.sql.Clauses;
import dev.tributary.sql.Defaults;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.system.Histograms;
import dev.tributary.system.Json;
import dev.tributary.table.Phase;
import dev.tributary.table.TableSpec;
import dev.tributary.table.TableStatus;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The reconciler on /actuator/prometheus: one info series per table (its phase and refresh mode),
 * tables per phase, pass and refresh durations as histograms (aggregatable across replicas), the
 * tables' events by type and reason and their failures by table, the claims this replica took and
 * the tables no replica has taken although due, and per table the age of the newest checkpoint the
 * reconciler has seen and of the last savepoint, the freshness lag beside the declared FRESHNESS
 * and the checkpoint interval, and the rows each expectation passed and failed. The rules in {@code
 * deploy/observability} are written against these names; {@code MetricsIT} checks that they exist.
 */
public class ReconcileMetrics {

  /** No metrics (tests and tools). */
  public static final ReconcileMetrics NONE = new ReconcileMetrics(null, null, null);

  /** A span that may be there or not (tracing off): tags, then closed once. */
  public interface Traced extends AutoCloseable {
    void tag(String key, String value);

    @Override
    void close();
  }

  private static final Traced UNTRACED =
      new Traced() {
        @Override
        public void tag(String key, String value) {}

        @Override
        public void close() {}
      };

  /**
   * The reasons of WARNING events that count as a table's failure: its job failed, a refresh
   * attempt failed, the retries ran out, an operation or evolution failed, the data broke a rule,
   * or the definition cannot run.
   */
  static final Set<String> FAILURE_REASONS =
      Set.of(
          "JobFailed",
          "RetriesExhausted",
          "RefreshFailed",
          "RefreshRetriesExhausted",
          "OperationFailed",
          "EvolutionRolledBack",
          "SavepointFailed",
          "FlowFailed",
          "InvalidQuery",
          "TopicConflict",
          "SchemaIncompatible",
          "ExpectationViolated",
          "RecordUnreadable");

  /** Tables due for longer than this, and held by no replica, are overdue. */
  static final Duration OVERDUE = Duration.ofSeconds(30);

  private final MeterRegistry registry;
  private final JdbcTemplate jdbc;
  private final Tracer tracer;
  private final Map<Phase, AtomicLong> phases = new EnumMap<>(Phase.class);
  private final AtomicLong overdue = new AtomicLong();

  /** Seconds since a replica last began the sweep of settled tables; -1 before any did. */
  private final AtomicLong sweepAge = new AtomicLong(-1);

  private final Counter claims;
  private final MultiGauge info;
  private final MultiGauge freshness;
  private final MultiGauge checkpointInterval;
  private final MultiGauge checkpointAge;
  private final MultiGauge savepointAge;
  private final MultiGauge freshnessLag;
  private final MultiGauge expectationRows;

  /** What a table's spec declares, parsed once per generation. */
  private final Map<UUID, Declared> declared = new ConcurrentHashMap<>();

  /** Meters registered per table as events happen, not from the store's rows. */
  private static final List<String> PER_TABLE =
      List.of("tributary.table.failures", "tributary.refresh.duration");

  private Set<String> missingLastRound = Set.of();

  private volatile long lastRefresh = System.nanoTime() - Duration.ofMinutes(1).toNanos();

  private record Declared(long generation, String refreshMode, Duration freshness) {}

  public ReconcileMetrics(MeterRegistry registry, JdbcTemplate jdbc) {
    this(registry, jdbc, null);
  }

  /** With a tracer, each pass is a span (the current one on its thread while it runs). */
  public ReconcileMetrics(MeterRegistry registry, JdbcTemplate jdbc, Tracer tracer) {
    this.registry = registry;
    this.jdbc = jdbc;
    this.tracer = tracer;
    if (registry == null) {
      claims = null;
      info = null;
      freshness = null;
      checkpointInterval = null;
      expectationRows = null;
      checkpointAge = null;
      savepointAge = null;
      freshnessLag = null;
      return;
    }
    for (Phase phase : Phase.values()) {
      AtomicLong count = new AtomicLong();
      phases.put(phase, count);
      Gauge.builder("tributary.tables", count, AtomicLong::get)
          .description("Tables (not flows) per phase, as stored; read every 5 seconds")
          .tag("phase", phase.name())
          .register(registry);
    }
    Gauge.builder("tributary.reconcile.overdue.tables", overdue, AtomicLong::get)
        .description(
            "Tables whose pass has been due for over 30 seconds and that no replica holds: with"
                + " replicas running this should stay at 0")
        .register(registry);
    Gauge.builder("tributary.reconcile.sweep.age", sweepAge, AtomicLong::get)
        .description(
            "Seconds since a replica last began the sweep of settled tables (one per resync"
                + " interval across all replicas); settled tables are looked at by the sweep only, so"
                + " a value well over the resync interval means nobody looks at them")
        .baseUnit("seconds")
        .register(registry);
    claims =
        Counter.builder("tributary.reconcile.claims")
            .description("Tables this replica claimed for a pass")
            .register(registry);
    info =
        MultiGauge.builder("tributary.table.info")
            .description(
                "1 per table (not flows): its phase and its refresh mode (CONTINUOUS or FULL, AUTO"
                    + " resolved)")
            .register(registry);
    freshness =
        MultiGauge.builder("tributary.table.freshness")
            .description(
                "The table's FRESHNESS, declared or defaulted, in seconds (materialized tables only)")
            .baseUnit("seconds")
            .register(registry);
    checkpointInterval =
        MultiGauge.builder("tributary.table.checkpoint.interval")
            .description("The checkpoint interval of the table's running job, in seconds")
            .baseUnit("seconds")
            .register(registry);
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
  }

  /** The span of one pass over a table, current on this thread until closed. */
  Traced passSpan(String table) {
    if (tracer == null) {
      return UNTRACED;
    }
    Span span = tracer.nextSpan().name("reconcile pass").tag("table", table).start();
    Tracer.SpanInScope scope = tracer.withSpan(span);
    return new Traced() {
      @Override
      public void tag(String key, String value) {
        span.tag(key, value);
      }

      @Override
      public void close() {
        scope.close();
        span.end();
      }
    };
  }

  /** One pass over one table: how long it took and how it ended (ok, failed, claim_lost, error). */
  void pass(Duration took, String outcome) {
    if (registry != null) {
      Timer.builder("tributary.reconcile.pass")
          .description(
              "Duration of one reconcile pass over one table, by outcome (ok, failed, claim_lost,"
                  + " dropped, abandoned, error)")
          .serviceLevelObjectives(Histograms.CALLS)
          .tag("outcome", outcome)
          .register(registry)
          .record(took);
    }
  }

  /** The worker claimed {@code count} tables. */
  void claimed(int count) {
    if (claims != null) {
      claims.increment(count);
    }
  }

  /**
   * An event of a table's log, by type and reason: WARNING JobFailed counts job failures (each
   * followed by a restart or by FAILED), OperationFailed, SavepointFailed, EvolutionRolledBack,
   * DuplicateJob and WaitingForTaskSlots the trouble the reconciler met. A failure ({@link
   * #FAILURE_REASONS}) also counts against its table.
   */
  void event(UUID table, String type, String reason) {
    if (registry == null) {
      return;
    }
    Counter.builder("tributary.table.events")
        .description("Events of the tables' logs, by type (NORMAL, WARNING) and reason")
        .tag("type", type)
        .tag("reason", reason)
        .register(registry)
        .increment();
    if ("WARNING".equals(type) && FAILURE_REASONS.contains(reason)) {
      Counter.builder("tributary.table.failures")
          .description(
              "Failures of a table, by reason: a job or refresh attempt failed, retries ran out,"
                  + " an operation or evolution failed, the data broke a rule, the definition"
                  + " cannot run")
          .tag("table", qualifiedName(table))
          .tag("reason", reason)
          .register(registry)
          .increment();
    }
  }

  /**
   * A refresh attempt ended: succeeded, retried (failed, tried again) or failed (no more tries).
   */
  void refreshEnded(UUID table, String outcome, Duration took) {
    if (registry != null) {
      Timer.builder("tributary.refresh.duration")
          .description(
              "How long a FULL table's refresh had run (from its first attempt) when an attempt"
                  + " ended, by outcome: succeeded, retried (failed and tried again), failed"
                  + " (retries exhausted or an expectation failed)")
          .serviceLevelObjectives(Histograms.REFRESHES)
          .tag("table", qualifiedName(table))
          .tag("outcome", outcome)
          .register(registry)
          .record(took.isNegative() ? Duration.ZERO : took);
    }
  }

  /** catalog.database.table, the parent's name for a flow; the id when the row is gone. */
  private String qualifiedName(UUID id) {
    if (jdbc == null) {
      return id.toString();
    }
    List<String> names =
        jdbc.queryForList(
            """
            SELECT c.name || '.' || d.name || '.' || coalesce(p.name, t.name)
            FROM materialized_table t JOIN catalog_database d ON d.id = t.database_id
              JOIN catalog c ON c.id = d.catalog_id
              LEFT JOIN materialized_table p ON p.id = t.flow_of
            WHERE t.id = ?""",
            String.class,
            id);
    return names.isEmpty() ? id.toString() : names.get(0);
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
    overdue.set(
        jdbc.queryForObject(
            """
            SELECT count(*) FROM materialized_table
            WHERE next_attempt_at < now() - (? * interval '1 millisecond')
              AND (lease_expires_at IS NULL OR lease_expires_at < now())""",
            Long.class,
            OVERDUE.toMillis()));
    Long age =
        jdbc.queryForObject(
            "SELECT CASE WHEN started_at = '-infinity' THEN -1 ELSE"
                + " floor(extract(epoch FROM now() - started_at))::bigint END FROM reconcile_sweep",
            Long.class);
    sweepAge.set(age == null ? -1 : age);
    if (checkpointAge == null) {
      return;
    }
    tables();
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

  /**
   * The info series of every table, its declared FRESHNESS and its job's checkpoint interval. A
   * spec is parsed when its generation is new to this replica, not on every refresh.
   */
  private void tables() {
    record Row(UUID id, long generation, String qualified, String phase, long intervalMs) {}
    List<Row> rows =
        jdbc.query(
            """
            SELECT t.id, t.generation, c.name || '.' || d.name || '.' || t.name AS qualified,
                   t.phase, coalesce((t.status ->> 'checkpointIntervalMs')::bigint, 0) AS interval_ms
            FROM materialized_table t JOIN catalog_database d ON d.id = t.database_id
              JOIN catalog c ON c.id = d.catalog_id
            WHERE t.flow_of IS NULL""",
            (rs, n) ->
                new Row(
                    rs.getObject("id", UUID.class),
                    rs.getLong("generation"),
                    rs.getString("qualified"),
                    rs.getString("phase"),
                    rs.getLong("interval_ms")));
    Set<UUID> present = new HashSet<>();
    List<UUID> stale = new ArrayList<>();
    for (Row row : rows) {
      present.add(row.id());
      Declared known = declared.get(row.id());
      if (known == null || known.generation() != row.generation()) {
        stale.add(row.id());
      }
    }
    declared.keySet().retainAll(present);
    forgetDropped(rows.stream().map(Row::qualified).collect(Collectors.toSet()));
    if (!stale.isEmpty()) {
      jdbc.query(
          connection -> {
            var statement =
                connection.prepareStatement(
                    "SELECT id, generation, spec FROM materialized_table WHERE id = ANY (?)");
            statement.setArray(1, connection.createArrayOf("uuid", stale.toArray()));
            return statement;
          },
          rs -> {
            declared.put(
                rs.getObject("id", UUID.class),
                declared(rs.getLong("generation"), rs.getString("spec")));
          });
    }
    List<MultiGauge.Row<?>> infos = new ArrayList<>();
    List<MultiGauge.Row<?>> freshnesses = new ArrayList<>();
    List<MultiGauge.Row<?>> intervals = new ArrayList<>();
    for (Row row : rows) {
      Declared d = declared.get(row.id());
      if (d == null) {
        continue; // dropped between the two queries
      }
      Tags table = Tags.of("table", row.qualified());
      infos.add(
          MultiGauge.Row.of(table.and("phase", row.phase(), "refresh_mode", d.refreshMode()), 1));
      if (d.freshness() != null) {
        freshnesses.add(MultiGauge.Row.of(table, d.freshness().toMillis() / 1000.0));
      }
      if (row.intervalMs() > 0) {
        intervals.add(MultiGauge.Row.of(table, row.intervalMs() / 1000.0));
      }
    }
    info.register(infos, true);
    freshness.register(freshnesses, true);
    checkpointInterval.register(intervals, true);
  }

  /**
   * Removes the per-table counters and timers of tables that are gone, so that a long-lived replica
   * does not serve a series for every table it ever saw. A name must be missing from two rounds in
   * a row (10 s or more): a table created between this round's read and the removal is missing from
   * one round only, and keeps what it counted.
   */
  private void forgetDropped(Set<String> tables) {
    Set<String> missing = new HashSet<>();
    for (String meter : PER_TABLE) {
      for (Meter m : registry.find(meter).meters()) {
        String table = m.getId().getTag("table");
        if (table != null && !tables.contains(table)) {
          missing.add(table);
          if (missingLastRound.contains(table)) {
            registry.remove(m);
          }
        }
      }
    }
    missingLastRound = missing;
  }

  /**
   * A materialized table's effective refresh mode and FRESHNESS; a pipeline table's flows run
   * continuously and declare no FRESHNESS.
   */
  private static Declared declared(long generation, String specJson) {
    TableSpec spec = Json.read(specJson, TableSpec.class);
    if (spec.kind() != TableSpec.Kind.MATERIALIZED_TABLE || spec.definition() == null) {
      return new Declared(generation, Clauses.RefreshMode.CONTINUOUS.name(), null);
    }
    MaterializedTableDefinition d = spec.definition();
    Clauses.RefreshMode mode = Defaults.refreshMode(d.refreshMode(), d.freshness());
    Clauses.Interval freshness =
        d.freshness() != null
            ? d.freshness()
            : mode == Clauses.RefreshMode.FULL
                ? Defaults.DEFAULT_FULL_FRESHNESS
                : Defaults.DEFAULT_FRESHNESS;
    return new Declared(generation, mode.name(), freshness.toDuration());
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
