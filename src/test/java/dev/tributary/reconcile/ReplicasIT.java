package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tributary.TributaryIT;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Parser;
import dev.tributary.sql.Statement;
import dev.tributary.table.MaterializedTableService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.TestPropertySource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Two replicas' workers claim from the same PostgreSQL store at once. Claims are real (FOR UPDATE
 * SKIP LOCKED with a lease); Kafka, the registry and Flink are in-memory fakes shared by both, as
 * one cluster would be, and count what was submitted.
 */
@TributaryIT
@TestPropertySource(
    properties = {
      "tributary.reconciler.enabled=false",
      "tributary.kafka.topic-name-template={catalog}.{table}"
    })
class ReplicasIT {

  static final int TABLES = 30;

  @Autowired MaterializedTableService tables;
  @Autowired JdbcReconcileStore store;
  @Autowired JdbcTemplate jdbc;
  @Autowired PlatformTransactionManager transactions;

  @Test
  void shouldNeverSubmitATableTwiceWhenTwoReplicasReconcileTogether() throws Exception {
    FakeWorld world = new FakeWorld(store);
    assertOneJobPerTable(world, Duration.ofSeconds(30), true);
  }

  /**
   * The lease (150 ms) is shorter than a pass (each INSERT takes 400 ms to answer) and leases are
   * not extended: the other replica claims rows whose passes are still running. Only the fencing (a
   * write or side effect whose claim is gone changes nothing and ends the pass) keeps every table
   * to one job.
   */
  @Test
  void shouldNeverSubmitATableTwiceWhenLeasesExpireDuringPasses() throws Exception {
    FakeWorld world = new FakeWorld(store);
    world.flink.insertDelay = Duration.ofMillis(400);
    assertOneJobPerTable(world, Duration.ofMillis(150), false);
  }

  /**
   * A rolling restart: a replica stops while its passes hang in a SQL Gateway call that neither
   * answers nor heeds an interrupt. It gives its rows back due now, so the other replica claims
   * them at once, not when the 15 s leases would have run out (and the hung passes, when their
   * calls return, can no longer write).
   */
  @Test
  void shouldGiveItsTablesBackAtOnceWhenAReplicaStopsMidPass() throws Exception {
    FakeWorld world = new FakeWorld(store);
    world.flink.insertDelay = Duration.ofSeconds(60);
    world.flink.insertIgnoresInterrupts = true;
    String catalog = "stopping_" + UUID.randomUUID().toString().substring(0, 8);
    List<UUID> ours = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Statement.CreateMaterializedTable create =
          (Statement.CreateMaterializedTable)
              Parser.parse(
                  "CREATE MATERIALIZED TABLE t" + i + " AS SELECT order_id, price FROM orders");
      ours.add(
          tables
              .create(new ObjectName(catalog, "db", "t" + i), create.definition(), false, false)
              .table()
              .getId());
    }
    String owner = "replica-a-" + catalog;
    ReconcileWorker a = worker(world, owner, Duration.ofSeconds(15), true);
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try {
      // Rounds until all three are held by a's passes (other tests' rows may come first).
      thread.submit(
          () -> {
            while (a.isRunning()) {
              a.runOnce();
            }
            return null;
          });
      await().atMost(Duration.ofSeconds(30)).until(() -> held(owner, ours) == ours.size());

      long stopping = System.nanoTime();
      a.stop();
      double stopped = (System.nanoTime() - stopping) / 1e9;
      assertThat(held(owner, ours)).as("rows still held by the stopped replica").isZero();

      long after = System.nanoTime();
      List<UUID> taken = new ArrayList<>();
      await()
          .atMost(Duration.ofSeconds(2))
          .pollInterval(Duration.ofMillis(20))
          .until(
              () -> {
                store.claim("replica-b-" + catalog, 1000, Duration.ofSeconds(15)).stream()
                    .map(ReconcileStore.Claim::id)
                    .filter(ours::contains)
                    .forEach(taken::add);
                return taken.containsAll(ours);
              });
      System.out.printf(
          "REPLICAS stop mid-pass: the stopping replica returned in %.1f s (grace %d s); the other"
              + " claimed its %d tables %.0f ms later (lease 15 s)%n",
          stopped,
          ReconcileWorker.STOP_GRACE.toSeconds(),
          ours.size(),
          (System.nanoTime() - after) / 1e6);
    } finally {
      thread.shutdownNow();
    }
  }

  /**
   * A claim takes at most as many rows as it asks for, when many rows became due at once (an apply
   * of many files, written in one transaction) and the planner's statistics still count the table
   * as it was before them. Written as {@code UPDATE ... WHERE id IN (SELECT ... LIMIT n FOR UPDATE
   * SKIP LOCKED)}, PostgreSQL could run the subquery again for each row it updated, each run
   * skipping the rows the statement had already updated: a claim of 8 took all 200 rows of a
   * bench's apply, one replica held every table, and the tables whose jobs had started waited
   * behind them all. This test did not make the old statement take more than 8 here (nor with
   * another writer touching the rows meanwhile): it guards the bound, the bench's log showed the
   * fault.
   */
  @Test
  void shouldClaimNoMoreRowsThanAskedWhenManyBecomeDueAtOnce() {
    String catalog = "claims_" + UUID.randomUUID().toString().substring(0, 8);
    String owner = "claimer-" + catalog;
    Statement.CreateMaterializedTable create =
        (Statement.CreateMaterializedTable)
            Parser.parse("CREATE MATERIALIZED TABLE t AS SELECT order_id, price FROM orders");
    jdbc.execute("ANALYZE materialized_table");
    List<Integer> sizes = new ArrayList<>();
    try {
      new TransactionTemplate(transactions)
          .executeWithoutResult(
              tx -> {
                for (int i = 0; i < 200; i++) {
                  tables.create(
                      new ObjectName(catalog, "db", "t" + i), create.definition(), false, false);
                }
              });
      List<ReconcileStore.Claim> claims;
      while (!(claims = store.claim(owner, 8, Duration.ofSeconds(30))).isEmpty()) {
        sizes.add(claims.size());
      }
    } finally {
      // Parked: the other tests' workers share this store and would work through them.
      jdbc.update(
          "UPDATE materialized_table SET next_attempt_at = 'infinity', lease_owner = NULL,"
              + " claim_token = NULL, lease_expires_at = NULL WHERE lease_owner = ?",
          owner);
    }
    System.out.printf(
        "REPLICAS claims of 8 after 200 rows became due at once: %d claims, largest %d%n",
        sizes.size(), sizes.stream().mapToInt(Integer::intValue).max().orElse(0));
    assertThat(sizes).isNotEmpty().allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(8));
    assertThat(sizes.stream().mapToInt(Integer::intValue).sum())
        .as("every row claimed once")
        .isGreaterThanOrEqualTo(200);
  }

  /**
   * The store's statements that update many rows at once (a batch of releases, the watch's marks,
   * the lease heartbeat) run on different threads of a replica, over the same rows. Each locks its
   * rows in the order of their ids, so two of them never wait for each other: the ResyncBench of
   * 10,000 tables died of a "deadlock detected" between a release and another writer when each took
   * its rows in its own order.
   */
  @Test
  void shouldNotDeadlockWhenReleasesMarksAndHeartbeatsMeetOnTheSameRows() throws Exception {
    String catalog = "locks_" + UUID.randomUUID().toString().substring(0, 8);
    String owner = "locker-" + catalog;
    Statement.CreateMaterializedTable create =
        (Statement.CreateMaterializedTable)
            Parser.parse("CREATE MATERIALIZED TABLE t AS SELECT order_id, price FROM orders");
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(3);
    try {
      new TransactionTemplate(transactions)
          .executeWithoutResult(
              tx -> {
                for (int i = 0; i < 300; i++) {
                  tables.create(
                      new ObjectName(catalog, "db", "t" + i), create.definition(), false, false);
                }
              });
      for (int round = 0; round < 40 && failures.isEmpty(); round++) {
        List<ReconcileStore.Claim> claims = new ArrayList<>();
        List<ReconcileStore.Claim> more;
        while (claims.size() < 300
            && !(more = store.claim(owner, 300, Duration.ofSeconds(30))).isEmpty()) {
          claims.addAll(more);
        }
        List<ReconcileStore.Release> releases =
            claims.stream()
                .map(c -> new ReconcileStore.Release(c.id(), c.token(), 0, Duration.ZERO, 0))
                .toList();
        List<UUID> backwards =
            new ArrayList<>(claims.stream().map(ReconcileStore.Claim::id).toList());
        Collections.reverse(backwards);
        List<ReconcileStore.Claim> shuffled = new ArrayList<>(claims);
        Collections.shuffle(shuffled);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done =
            List.of(
                threads.submit(() -> run(start, failures, () -> store.releaseAll(releases))),
                threads.submit(() -> run(start, failures, () -> store.markDue(backwards))),
                threads.submit(
                    () ->
                        run(
                            start,
                            failures,
                            () -> store.extend(shuffled, Duration.ofSeconds(30)))));
        start.countDown();
        for (Future<?> f : done) {
          f.get(60, TimeUnit.SECONDS);
        }
      }
    } finally {
      threads.shutdownNow();
      jdbc.update(
          "UPDATE materialized_table SET next_attempt_at = 'infinity', lease_owner = NULL,"
              + " claim_token = NULL, lease_expires_at = NULL WHERE database_id IN (SELECT d.id"
              + " FROM catalog_database d JOIN catalog c ON c.id = d.catalog_id WHERE c.name = ?)",
          catalog);
    }
    assertThat(failures).isEmpty();
  }

  private static void run(CountDownLatch start, List<Throwable> failures, Runnable statement) {
    try {
      start.await();
      statement.run();
    } catch (Throwable e) {
      failures.add(e);
    }
  }

  private int held(String owner, List<UUID> ids) {
    Integer n =
        jdbc.queryForObject(
            "SELECT count(*) FROM materialized_table WHERE lease_owner = ? AND id = ANY (?)",
            Integer.class,
            owner,
            ids.toArray(new UUID[0]));
    return n == null ? 0 : n;
  }

  private void assertOneJobPerTable(FakeWorld world, Duration lease, boolean heartbeat)
      throws Exception {
    String catalog = "replicas_" + UUID.randomUUID().toString().substring(0, 8);
    for (int i = 0; i < TABLES; i++) {
      Statement.CreateMaterializedTable create =
          (Statement.CreateMaterializedTable)
              Parser.parse(
                  "CREATE MATERIALIZED TABLE t" + i + " AS SELECT order_id, price FROM orders");
      tables.create(new ObjectName(catalog, "db", "t" + i), create.definition(), false, false);
    }
    List<ReconcileWorker> replicas =
        List.of(
            worker(world, "replica-a", lease, heartbeat),
            worker(world, "replica-b", lease, heartbeat));
    ExecutorService threads = Executors.newFixedThreadPool(2);
    AtomicBoolean stop = new AtomicBoolean();
    List<AtomicInteger> claimed = List.of(new AtomicInteger(), new AtomicInteger());
    for (int r = 0; r < 2; r++) {
      ReconcileWorker replica = replicas.get(r);
      AtomicInteger count = claimed.get(r);
      threads.submit(
          () -> {
            while (!stop.get()) {
              count.addAndGet(replica.runOnce());
            }
            return null;
          });
    }

    try {
      await().atMost(Duration.ofSeconds(120)).until(() -> running(catalog) == TABLES);
    } finally {
      stop.set(true);
      threads.shutdown();
      threads.awaitTermination(30, TimeUnit.SECONDS);
      replicas.forEach(ReconcileWorker::stop);
    }

    // The store is shared with other tests of this context, whose tables the workers also take:
    // count per table. Every job is the only one of its table, and each of ours has exactly one.
    List<String> names = new ArrayList<>();
    world.flink.jobs.values().forEach(j -> names.add(j.name));
    assertThat(names).doesNotHaveDuplicates();
    List<UUID> ours =
        jdbc.queryForList(
            "SELECT t.id FROM materialized_table t JOIN catalog_database d ON d.id = t.database_id JOIN catalog c ON c.id = d.catalog_id"
                + " WHERE c.name = ?",
            UUID.class,
            catalog);
    assertThat(ours)
        .hasSize(TABLES)
        .allSatisfy(
            id ->
                assertThat(names.stream().filter(n -> n.startsWith("tributary-" + id + "-")))
                    .hasSize(1));
    assertThat(claimed)
        .allSatisfy(c -> assertThat(c.get()).as("both replicas worked").isPositive());
  }

  private ReconcileWorker worker(FakeWorld world, String owner, Duration lease, boolean heartbeat) {
    ReconcileWorker worker =
        new ReconcileWorker(
            store,
            world.reconciler,
            world.flink,
            new ReconcileWorker.Settings(
                Duration.ofMillis(50), 3, lease, 2, Duration.ofSeconds(2), heartbeat),
            owner);
    worker.startPassesOnly();
    return worker;
  }

  private int running(String catalog) {
    Integer n =
        jdbc.queryForObject(
            "SELECT count(*) FROM materialized_table t JOIN catalog_database d ON d.id = t.database_id JOIN catalog c ON c.id = d.catalog_id"
                + " WHERE c.name = ? AND t.phase = 'RUNNING'",
            Integer.class,
            catalog);
    return n == null ? 0 : n;
  }
}
