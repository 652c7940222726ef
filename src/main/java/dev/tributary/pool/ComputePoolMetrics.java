package dev.tributary.pool;

import dev.tributary.plan.Placement;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Each compute pool's capacity and use, as gauges refreshed on a timer (a scrape never waits on a
 * cluster): {@code tributary_compute_pool_slots{pool,kind}} (total, available, used by Tributary,
 * free for it), {@code tributary_compute_pool_jobs{pool}}, {@code
 * tributary_compute_pool_tables{pool}} (placed there) and {@code
 * tributary_compute_pool_unreachable{pool}} (1 when its JobManager did not answer the last look).
 */
@Component
class ComputePoolMetrics implements SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(ComputePoolMetrics.class);

  private final ComputePools pools;
  private final Placement placement;
  private final JdbcTemplate jdbc;
  private final Duration interval;
  private final MultiGauge slots;
  private final MultiGauge jobs;
  private final MultiGauge tables;
  private final MultiGauge unreachable;
  private ScheduledExecutorService timer;
  private volatile boolean running;

  ComputePoolMetrics(
      ComputePools pools,
      Placement placement,
      JdbcTemplate jdbc,
      MeterRegistry registry,
      @Value("${tributary.pools.metrics-interval:15s}") Duration interval) {
    this.pools = pools;
    this.placement = placement;
    this.jdbc = jdbc;
    this.interval = interval;
    slots =
        MultiGauge.builder("tributary.compute.pool.slots")
            .description(
                "Task slots of the pool's cluster: total, available, used by the jobs of"
                    + " Tributary, free for a new one (maxSlots counted)")
            .register(registry);
    jobs =
        MultiGauge.builder("tributary.compute.pool.jobs")
            .description("Live jobs of Tributary on the pool's cluster")
            .register(registry);
    tables =
        MultiGauge.builder("tributary.compute.pool.tables")
            .description("Tables placed on the pool")
            .register(registry);
    unreachable =
        MultiGauge.builder("tributary.compute.pool.unreachable")
            .description("1 when the pool's JobManager did not answer the last look, else 0")
            .register(registry);
  }

  /** One look at every pool; gauges of pools that are gone go with them. */
  void refresh() {
    Map<String, Integer> placed = new HashMap<>();
    jdbc.query(
        "SELECT "
            + ComputePools.PLACED_ON
            + " AS pool, count(*) AS n FROM materialized_table t WHERE t.flow_of IS NULL AND NOT"
            + " t.deletion_requested GROUP BY 1",
        rs -> {
          placed.put(rs.getString("pool"), rs.getInt("n"));
        });
    List<MultiGauge.Row<?>> slotRows = new ArrayList<>();
    List<MultiGauge.Row<?>> jobRows = new ArrayList<>();
    List<MultiGauge.Row<?>> tableRows = new ArrayList<>();
    List<MultiGauge.Row<?>> downRows = new ArrayList<>();
    for (ComputePools.Pool pool : pools.list()) {
      Tags tags = Tags.of("pool", pool.name());
      tableRows.add(MultiGauge.Row.of(tags, placed.getOrDefault(pool.name(), 0)));
      try {
        Placement.Room room = placement.room(pool.name());
        slotRows.add(MultiGauge.Row.of(tags.and("kind", "total"), room.total()));
        slotRows.add(MultiGauge.Row.of(tags.and("kind", "available"), room.available()));
        slotRows.add(MultiGauge.Row.of(tags.and("kind", "used"), room.used()));
        slotRows.add(MultiGauge.Row.of(tags.and("kind", "free"), room.free()));
        jobRows.add(MultiGauge.Row.of(tags, room.jobs()));
        downRows.add(MultiGauge.Row.of(tags, 0));
      } catch (RuntimeException e) {
        downRows.add(MultiGauge.Row.of(tags, 1));
      }
    }
    slots.register(slotRows, true);
    jobs.register(jobRows, true);
    tables.register(tableRows, true);
    unreachable.register(downRows, true);
  }

  private void safeRefresh() {
    try {
      refresh();
    } catch (RuntimeException e) {
      log.debug("Compute pool metrics not refreshed: {}", e.toString());
    }
  }

  @Override
  public void start() {
    running = true;
    timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "pool-metrics");
              t.setDaemon(true);
              return t;
            });
    timer.scheduleWithFixedDelay(this::safeRefresh, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void stop() {
    running = false;
    if (timer != null) {
      timer.shutdownNow();
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }
}
