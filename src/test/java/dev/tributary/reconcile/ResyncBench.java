package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.TributaryIT;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.StoredTables;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.TestPropertySource;

/**
 * A no-change resync of 10,000 RUNNING tables through the real worker (claims, leases, loads,
 * status writes, releases) and the real PostgreSQL store. Kafka, the registry and Flink are fakes
 * behind counting proxies at the ports: every call the reconciler and the worker make is counted
 * there, and the time excludes what those systems would take to answer. Run with ./mvnw -Pbench
 * verify.
 */
@TributaryIT
@TestPropertySource(
    properties = {
      "tributary.reconciler.enabled=false",
      "tributary.kafka.topic-name-template={catalog}.{table}"
    })
class ResyncBench {

  static final int TABLES = Integer.getInteger("bench.tables", 10_000);
  static final int BATCH = 20;

  @Autowired MaterializedTableService tables;
  @Autowired JdbcReconcileStore store;
  @Autowired JdbcTemplate jdbc;

  @Test
  void resyncOfTenThousandRunningTables() throws Exception {
    String catalog = "bench_" + UUID.randomUUID().toString().substring(0, 8);
    long created = System.nanoTime();
    StoredTables.create(tables, catalog, TABLES);
    System.out.printf(
        "BENCH resync: stored %d tables in %.1f s%n", TABLES, (System.nanoTime() - created) / 1e9);

    FakeWorld world = new FakeWorld(store);
    ReconcileWorker worker =
        new ReconcileWorker(
            store,
            world.reconciler,
            world.countedJobs,
            world.countedTopics,
            new ReconcileWorker.Settings(Duration.ofMillis(50), BATCH, Duration.ofSeconds(30), 4),
            "bench",
            ReconcileMetrics.NONE);
    worker.startPassesOnly();
    try {
      long converging = System.nanoTime();
      while (running(catalog) < TABLES) {
        if (worker.runOnce() == 0) {
          Thread.sleep(50); // passes asked to be looked at again shortly
        }
      }
      System.out.printf(
          "BENCH resync: %d tables provisioned and RUNNING in %.1f s%n",
          TABLES, (System.nanoTime() - converging) / 1e9);
      int submissions = world.flink.submissions;

      for (int round = 1; round <= 3; round++) {
        jdbc.update("UPDATE materialized_table SET next_attempt_at = now()");
        world.calls.clear();
        long start = System.nanoTime();
        int passes = 0;
        int batches = 0;
        for (int n; (n = worker.runOnce()) > 0; ) {
          passes += n;
          batches++;
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Map<String, Long> calls = new TreeMap<>();
        world.calls.forEach((k, v) -> calls.put(k, v.sum()));
        System.out.printf(
            "BENCH resync round %d: %d passes in %d batches of up to %d, %.2f s (%.0f passes/s,"
                + " real worker and PostgreSQL, remote systems not timed)%n",
            round, passes, batches, BATCH, seconds, passes / seconds);
        System.out.printf(
            "BENCH resync round %d: calls %s; per batch: Flink %.2f, Kafka %.2f, registry %.2f%n",
            round,
            calls,
            (world.calls("flinkJobs") + world.calls("flinkSql")) / (double) batches,
            world.calls("kafka") / (double) batches,
            world.calls("registry") / (double) batches);
        assertThat(passes).isGreaterThanOrEqualTo(TABLES);
        assertThat(world.flink.submissions)
            .as("a no-change pass submits nothing")
            .isEqualTo(submissions);
      }
    } finally {
      worker.stop();
    }
  }

  private int running(String catalog) {
    Integer n =
        jdbc.queryForObject(
            "SELECT count(*) FROM materialized_table t JOIN catalog_database d ON d.id ="
                + " t.database_id JOIN catalog c ON c.id = d.catalog_id WHERE c.name = ? AND"
                + " t.phase = 'RUNNING'",
            Integer.class,
            catalog);
    return n == null ? 0 : n;
  }
}
