package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.TributaryIT;
import dev.tributary.bench.Profile;
import dev.tributary.bench.Waterfall;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.StoredTables;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.TestPropertySource;

/**
 * A no-change resync of 10,000 RUNNING tables through the real worker (claims, leases, loads,
 * status writes, releases) and the real PostgreSQL store. Kafka, the registry and Flink are fakes
 * behind counting proxies at the ports: every call the reconciler and the worker make is counted
 * there, and the time excludes what those systems would take to answer. Each round prints its
 * waterfall: the store's calls on the worker's own thread (claim, the clock, the due topics, the
 * batch loads and releases) as wall time, the passes' store writes as time summed over the pass
 * threads, and the rest of the round (passes computing, the fakes answering) as {@code other}; and
 * what the round wrote: status rows, events, and the lease writes (a claim and a release per
 * batch). Run with ./mvnw -Pbench verify.
 */
@TributaryIT
@TestPropertySource(
    properties = {
      "tributary.reconciler.enabled=false",
      "tributary.kafka.topic-name-template={catalog}.{table}"
    })
class ResyncBench {

  static final int TABLES = Integer.getInteger("bench.tables", 10_000);
  static final int BATCH = Integer.getInteger("bench.batch", 20);

  static final int ROUNDS = Integer.getInteger("bench.rounds", 5);

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

    Map<String, LongAdder> storeNanos = new ConcurrentHashMap<>();
    ReconcileStore timed = timed(store, storeNanos);
    FakeWorld world = new FakeWorld(timed);
    ReconcileWorker worker =
        new ReconcileWorker(
            timed,
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

      Waterfall waterfall = new Waterfall("resync");
      Profile profile = Profile.start();
      for (int round = 1; round <= ROUNDS; round++) {
        jdbc.update("UPDATE materialized_table SET next_attempt_at = now()");
        Timestamp began = jdbc.queryForObject("SELECT clock_timestamp()", Timestamp.class);
        world.calls.clear();
        storeNanos.clear();
        waterfall.round();
        long start = System.nanoTime();
        int passes = 0;
        int batches = 0;
        for (int n; (n = worker.runOnce()) > 0; ) {
          passes += n;
          batches++;
        }
        double millis = (System.nanoTime() - start) / 1e6;
        double accounted = 0;
        for (String call : List.of("claim", "now", "dueTopics", "loadAll", "releaseAll")) {
          double ms = millis(storeNanos, call);
          waterfall.phase("store." + call, ms);
          accounted += ms;
        }
        waterfall.phase("other", millis - accounted);
        waterfall.phase(
            "passes' store writes (thread time)",
            millis(storeNanos, "saveStatus") + millis(storeNanos, "event"));
        waterfall.total(millis, round);
        Integer statusRows =
            jdbc.queryForObject(
                "SELECT count(*) FROM materialized_table WHERE updated_at >= ?",
                Integer.class,
                began);
        Integer events =
            jdbc.queryForObject(
                "SELECT count(*) FROM table_event WHERE at >= ?", Integer.class, began);
        Map<String, Long> calls = new TreeMap<>();
        world.calls.forEach((k, v) -> calls.put(k, v.sum()));
        System.out.printf(
            Locale.ROOT,
            "BENCH resync round %d: %d passes in %d batches of up to %d (%.0f passes/s); wrote %d"
                + " status rows, %d events, %d lease updates (a claim and a release per batch);"
                + " calls %s%n",
            round,
            passes,
            batches,
            BATCH,
            passes / (millis / 1000),
            statusRows,
            events,
            2 * batches,
            calls);
        assertThat(passes).isGreaterThanOrEqualTo(TABLES);
        assertThat(world.flink.submissions)
            .as("a no-change pass submits nothing")
            .isEqualTo(submissions);
      }
      waterfall.printSummary();
      System.out.println("BENCH resync: JFR recording of the rounds in " + profile.keep("resync"));
      profile.close();
    } finally {
      worker.stop();
    }
  }

  private static double millis(Map<String, LongAdder> nanos, String call) {
    LongAdder n = nanos.get(call);
    return n == null ? 0 : n.sum() / 1e6;
  }

  /** The store behind a proxy that sums the time of each call, by method name. */
  private static ReconcileStore timed(ReconcileStore store, Map<String, LongAdder> nanos) {
    return (ReconcileStore)
        Proxy.newProxyInstance(
            ReconcileStore.class.getClassLoader(),
            new Class<?>[] {ReconcileStore.class},
            (proxy, method, args) -> {
              long start = System.nanoTime();
              try {
                return method.invoke(store, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              } finally {
                nanos
                    .computeIfAbsent(method.getName(), k -> new LongAdder())
                    .add(System.nanoTime() - start);
              }
            });
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
