package dev.tributary.pool;

import dev.tributary.pool.ComputePools.Placed;
import dev.tributary.security.Access;
import dev.tributary.security.AuditLog;
import dev.tributary.statement.StatementService;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Drains a compute pool: moves every table placed on it to another pool, one table at a time, each
 * with the statement a user would send ({@code ALTER MATERIALIZED TABLE ... SET ('compute-pool' =
 * ...)}, or {@code ALTER TABLE ... SET TBLPROPERTIES ('compute-pool' = ...)} for a pipeline table,
 * whose flows all move), so each move is planned, checked for room, versioned and audited as any
 * change, and the reconciler carries it out (stop with a savepoint, start from it on the new pool).
 * The next table moves once the last one's jobs run on the new pool ({@code observed_generation}
 * caught up, of the table and its flows).
 *
 * <p>The drain's state is a row of {@code compute_pool_drain}; any replica steps it, under a lease,
 * so a replica that dies mid-drain leaves it to another. A move the target refuses (full, say) is
 * kept as the drain's {@code lastError} and asked again at the next step. A move the reconciler
 * rolled back (the target could not start the job) ends the drain, unfinished.
 */
@Component
public class ComputePoolDrains implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(ComputePoolDrains.class);
  private static final Duration LEASE = Duration.ofSeconds(30);

  /** A drain under way, as GET shows it. */
  public record Drain(
      String pool,
      String to,
      String startedBy,
      Instant startedAt,
      int moved,
      int remaining,
      String moving,
      String lastError) {}

  private final JdbcTemplate jdbc;
  private final TransactionTemplate transactions;
  private final ComputePools pools;
  private final StatementService statements;
  private final AuditLog audit;
  private final Duration interval;
  private final String owner = UUID.randomUUID().toString();
  private ScheduledExecutorService steps;
  private volatile boolean running;

  ComputePoolDrains(
      JdbcTemplate jdbc,
      TransactionTemplate transactions,
      ComputePools pools,
      StatementService statements,
      AuditLog audit,
      @Value("${tributary.pools.drain-interval:2s}") Duration interval) {
    this.jdbc = jdbc;
    this.transactions = transactions;
    this.pools = pools;
    this.statements = statements;
    this.audit = audit;
    this.interval = interval;
  }

  /** Starts draining {@code pool} into {@code to}; 409 if a drain of it is under way already. */
  public Drain start(String pool, String to) {
    pools.get(pool);
    if (to == null || to.isBlank()) {
      throw new ApiException(ErrorCode.VALIDATION_FAILED, "A drain names the pool to move to: to");
    }
    pools.get(to);
    if (to.equals(pool)) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED, "A pool cannot be drained into itself: " + pool);
    }
    transactions.executeWithoutResult(
        tx -> {
          int inserted =
              jdbc.update(
                  "INSERT INTO compute_pool_drain (pool, to_pool, started_by) VALUES (?, ?, ?)"
                      + " ON CONFLICT (pool) DO NOTHING",
                  pool,
                  to,
                  Access.caller().name());
          if (inserted == 0) {
            throw new ApiException(
                ErrorCode.CONFLICT, "Compute pool " + pool + " is being drained already");
          }
          audit.changed("DRAIN COMPUTE POOL", "compute-pool " + pool, null, "to " + to);
        });
    return find(pool).orElseThrow();
  }

  /** The drain of {@code pool} under way, if any. */
  public Optional<Drain> find(String pool) {
    List<Drain> found =
        jdbc.query(
            "SELECT pool, to_pool, started_by, started_at, moved, moving, last_error FROM"
                + " compute_pool_drain WHERE pool = ?",
            (rs, i) -> {
              List<Placed> left = placed(pool);
              return new Drain(
                  rs.getString("pool"),
                  rs.getString("to_pool"),
                  rs.getString("started_by"),
                  rs.getTimestamp("started_at").toInstant(),
                  rs.getInt("moved"),
                  (int) left.stream().filter(t -> t.placedOn().equals(pool)).count(),
                  rs.getString("moving"),
                  rs.getString("last_error"));
            },
            pool);
    return found.stream().findFirst();
  }

  private List<Placed> placed(String pool) {
    return pools.tablesOn(pool, Integer.MAX_VALUE, true);
  }

  /**
   * A query of {@code select} over the rows of the table named by the first three parameters
   * (catalog, database, name) and of its flows; {@code where} narrows them.
   */
  private static String overTableAndFlows(String select, String where) {
    return "WITH target AS (SELECT m.id FROM materialized_table m JOIN catalog_database d ON d.id ="
        + " m.database_id JOIN catalog c ON c.id = d.catalog_id WHERE c.name = ? AND d.name = ?"
        + " AND m.name = ? AND m.flow_of IS NULL) SELECT "
        + select
        + " FROM materialized_table t WHERE (t.id IN (SELECT id FROM target) OR t.flow_of IN"
        + " (SELECT id FROM target))"
        + where;
  }

  /**
   * Whether the table the drain moved last is still under way: not dropped, and the world does not
   * match its latest generation yet (its job, or a pipeline table's flows' jobs, have not run on
   * the new pool).
   */
  private boolean underWay(String qualifiedName) {
    String[] name = qualifiedName.split("\\.", 3);
    Boolean atRest =
        jdbc.queryForObject(
            overTableAndFlows(
                "bool_and(t.observed_generation >= t.generation OR t.deletion_requested)", ""),
            Boolean.class,
            name[0],
            name[1],
            name[2]);
    return atRest != null && !atRest;
  }

  /**
   * Whether the table the drain moved last, or one of its flows, settled back on {@code pool}: its
   * move was rolled back.
   */
  private boolean settledBack(String qualifiedName, String pool) {
    String[] name = qualifiedName.split("\\.", 3);
    Long back =
        jdbc.queryForObject(
            overTableAndFlows(
                "count(*)", " AND NOT t.deletion_requested AND " + ComputePools.PLACED_ON + " = ?"),
            Long.class,
            name[0],
            name[1],
            name[2],
            pool);
    return back != null && back > 0;
  }

  /** One step of every drain this replica can take: one table moved, or the drain ended. */
  void step() {
    List<Map<String, Object>> drains =
        jdbc.queryForList(
            "UPDATE compute_pool_drain SET owner = ?, lease_until = now() + ? * interval '1"
                + " millisecond' WHERE owner IS NULL OR owner = ? OR lease_until < now()"
                + " RETURNING pool, to_pool, moved, moving",
            owner,
            LEASE.toMillis(),
            owner);
    for (Map<String, Object> d : drains) {
      String pool = (String) d.get("pool");
      String to = (String) d.get("to_pool");
      step(pool, to, ((Number) d.get("moved")).intValue(), (String) d.get("moving"));
    }
  }

  private void step(String pool, String to, int moved, String moving) {
    if (moving != null && underWay(moving)) {
      return; // the last move is under way
    }
    List<Placed> left = placed(pool);
    if (moving != null && settledBack(moving, pool)) {
      // Its move settled back on this pool: it was rolled back (its events say why). Moving it
      // again would fail again, and each try stops its job: the drain ends here, unfinished.
      transactions.executeWithoutResult(
          tx -> {
            jdbc.update("DELETE FROM compute_pool_drain WHERE pool = ?", pool);
            audit.changed(
                "DRAIN STOPPED",
                "compute-pool " + pool,
                null,
                "the move of "
                    + moving
                    + " to "
                    + to
                    + " was rolled back; "
                    + (moved - 1)
                    + " table"
                    + (moved - 1 == 1 ? "" : "s")
                    + " moved before it");
          });
      log.warn(
          "Drain of compute pool {} stopped: the move of {} to {} was rolled back",
          pool,
          moving,
          to);
      return;
    }
    Optional<Placed> next = left.stream().filter(t -> t.placedOn().equals(pool)).findFirst();
    if (next.isEmpty()) {
      if (left.isEmpty()) {
        transactions.executeWithoutResult(
            tx -> {
              jdbc.update("DELETE FROM compute_pool_drain WHERE pool = ?", pool);
              audit.changed(
                  "DRAINED COMPUTE POOL",
                  "compute-pool " + pool,
                  null,
                  moved + " table" + (moved == 1 ? "" : "s") + " moved to " + to);
            });
        log.info("Compute pool {} drained: {} tables moved to {}", pool, moved, to);
      }
      return;
    }
    String[] name = next.get().name().split("\\.", 3);
    String quoted = "`" + name[2].replace("`", "``") + "`";
    String statement =
        next.get().pipelineTable()
            ? "ALTER TABLE " + quoted + " SET TBLPROPERTIES ('compute-pool' = '" + to + "')"
            : "ALTER MATERIALIZED TABLE " + quoted + " SET ('compute-pool' = '" + to + "')";
    try {
      statements.execute(statement, name[0], name[1]);
      jdbc.update(
          "UPDATE compute_pool_drain SET moved = moved + 1, moving = ?, last_error = NULL"
              + " WHERE pool = ?",
          next.get().name(),
          pool);
      log.info("Drain of compute pool {}: moving {} to {}", pool, next.get().name(), to);
    } catch (ApiException e) {
      jdbc.update(
          "UPDATE compute_pool_drain SET last_error = ? WHERE pool = ?",
          next.get().name() + ": " + e.getMessage(),
          pool);
    }
  }

  private void safeStep() {
    try {
      step();
    } catch (RuntimeException e) {
      log.warn("A drain step failed; the next one tries again: {}", e.toString());
    }
  }

  @Override
  public void start() {
    running = true;
    steps =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "pool-drain");
              t.setDaemon(true);
              return t;
            });
    steps.scheduleWithFixedDelay(
        this::safeStep, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void stop() {
    running = false;
    if (steps != null) {
      steps.shutdownNow();
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }
}
