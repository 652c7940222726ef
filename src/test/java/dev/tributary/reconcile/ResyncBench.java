package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.TributaryIT;
import dev.tributary.bench.Profile;
import dev.tributary.bench.Waterfall;
import dev.tributary.table.MaterializedTableService;
import dev.tributary.table.StoredTables;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.TestPropertySource;

/**
 * The resync of 10,000 settled RUNNING tables through the real worker's sweep and the real
 * PostgreSQL store: one query for the rows' stamps, the snapshots of rows written since the last
 * sweep, one job overview and one describe of the topics, a look-only pass per table on the pass
 * threads, and at most two writes (the rows to claim, the statuses that moved). Kafka, the registry
 * and Flink are fakes behind counting proxies at the ports: every call is counted there, and the
 * time excludes what those systems would take to answer. The fake jobs complete a checkpoint every
 * 10 s of the reconciler's clock, which the bench moves past the poll interval for one round, so
 * that round shows what recording every table's newer checkpoint costs. Each round prints its
 * phases, the rows it wrote (by each row's {@code xmin}) and its calls. Run with ./mvnw -Pbench
 * verify.
 */
@TributaryIT
// Its service stops when it ends, so the benchmarks after it measure theirs alone.
@DirtiesContext
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
    MovableClock clock = new MovableClock();
    FakeWorld world = new FakeWorld(timed, clock);
    world.flink.checkpointing = clock;
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
      long settling = System.nanoTime();
      int passes = 0;
      for (int tries = 0; settled() < TABLES; tries++) {
        assertThat(tries).as("tables that never settle: %d", TABLES - settled()).isLessThan(10);
        // The pass that made a table RUNNING acted, so it is due again by time: look now.
        jdbc.update(
            "UPDATE materialized_table SET next_attempt_at = now() WHERE next_attempt_at <> ?",
            ReconcileStore.SETTLED.atOffset(ZoneOffset.UTC));
        for (int n; (n = worker.runOnce()) > 0; ) {
          passes += n;
        }
      }
      System.out.printf(
          "BENCH resync: %d tables settled (a claimed pass found nothing to do) in %.1f s, %d"
              + " passes%n",
          TABLES, (System.nanoTime() - settling) / 1e9, passes);
      int submissions = world.flink.submissions;

      Waterfall waterfall = new Waterfall("resync");
      Profile profile = Profile.start();
      // Round -1: a replica's first sweep loads every settled row; later ones only rows written.
      // Round 0: every job completed checkpoints since its table was last polled (the clock moves
      // past the poll interval), as in a cluster; each look polls its job, and the sweep writes
      // the statuses that moved in one statement. Rounds 1..n: nothing changed.
      for (int round = -1; round <= ROUNDS; round++) {
        if (round == 0) {
          clock.advance(Duration.ofSeconds(31));
        }
        Map<UUID, Long> stampsBefore = store.settled();
        world.calls.clear();
        storeNanos.clear();
        long start = System.nanoTime();
        boolean mine = timed.beginSweep("bench", Duration.ZERO);
        ReconcileWorker.Sweep sweep = worker.sweep();
        double millis = (System.nanoTime() - start) / 1e6;
        Map<UUID, Long> stampsAfter = store.settled();
        long written =
            stampsBefore.entrySet().stream()
                .filter(e -> !e.getValue().equals(stampsAfter.get(e.getKey())))
                .count();
        Map<String, Long> calls = new TreeMap<>();
        world.calls.forEach((k, v) -> calls.put(k, v.sum()));
        String phases =
            String.format(
                Locale.ROOT,
                "sweep lease %.0f, stamps %.0f, loads %.0f, observe %.0f, looks %.0f, writes %.0f",
                millis(storeNanos, "beginSweep"),
                sweep.stampsNanos() / 1e6,
                sweep.loadNanos() / 1e6,
                sweep.observeNanos() / 1e6,
                sweep.looksNanos() / 1e6,
                sweep.markNanos() / 1e6);
        String what =
            String.format(
                Locale.ROOT,
                "%d settled tables looked at, %d snapshots loaded, %d made due, %d statuses"
                    + " written in one statement; table rows written %d, sweep rows written %d;"
                    + " calls %s",
                sweep.settled(),
                sweep.loaded(),
                sweep.due(),
                sweep.statusesWritten(),
                written,
                mine ? 1 : 0,
                calls);
        String name =
            round < 0
                ? "cold round (a replica's first sweep)"
                : round == 0 ? "round with every checkpoint moved" : "round " + round;
        System.out.printf(
            Locale.ROOT, "BENCH resync %s: %.0f ms [%s]; %s%n", name, millis, phases, what);
        assertThat(sweep.settled()).isGreaterThanOrEqualTo(TABLES);
        assertThat(sweep.due()).as("nothing but checkpoints changed: nothing made due").isZero();
        assertThat(world.flink.submissions).as("a sweep submits nothing").isEqualTo(submissions);
        if (round == 0) {
          assertThat(sweep.statusesWritten()).as("every table's new checkpoint").isEqualTo(TABLES);
        }
        if (round < 1) {
          continue;
        }
        assertThat(written).as("no table row written").isZero();
        waterfall.round();
        waterfall.phase("sweep lease", millis(storeNanos, "beginSweep"));
        waterfall.phase("stamps", sweep.stampsNanos() / 1e6);
        waterfall.phase("loads", sweep.loadNanos() / 1e6);
        waterfall.phase("observe (overview, describe)", sweep.observeNanos() / 1e6);
        waterfall.phase("looks (passes, 4 threads)", sweep.looksNanos() / 1e6);
        waterfall.phase("writes (mark due, statuses)", sweep.markNanos() / 1e6);
        waterfall.total(millis, round);
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

  /** The system clock, moved forward by the bench. */
  private static final class MovableClock extends Clock {
    private volatile Duration offset = Duration.ZERO;

    void advance(Duration by) {
      offset = offset.plus(by);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.now().plus(offset);
    }
  }

  private int settled() {
    Integer n =
        jdbc.queryForObject(
            "SELECT count(*) FROM materialized_table WHERE next_attempt_at = ?",
            Integer.class,
            ReconcileStore.SETTLED.atOffset(ZoneOffset.UTC));
    return n == null ? 0 : n;
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
