package dev.tributary.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.tributary.table.Phase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ReconcileWorkerTest {

  @Test
  void shouldMakeATableDueWhenItsJobChangesStateBetweenResyncs() {
    FakeWorld world = new FakeWorld();
    UUID id = world.create("CREATE MATERIALIZED TABLE t AS SELECT order_id FROM o");
    world.converge(id);
    ReconcileWorker worker =
        new ReconcileWorker(
            world.store,
            world.reconciler,
            world.flink,
            new ReconcileWorker.Settings(
                Duration.ofMillis(10), 1, Duration.ofSeconds(1), 1, Duration.ZERO, true),
            "w");

    worker.watch();
    worker.watch();
    world.flink.fail(world.status(id).jobId());
    worker.watch();

    assertThat(world.store.markedDue).containsExactly(List.of(id), List.of(), List.of(id));
  }

  @Test
  void shouldMakeOneCallToFlinkAndOneToKafkaPerBatchWhenNothingChanged() {
    FakeWorld world = new FakeWorld();
    converged(world, 20);
    ReconcileWorker worker =
        countedWorker(
            world,
            new ReconcileWorker.Settings(Duration.ofMillis(10), 20, Duration.ofSeconds(1), 2));
    world.calls.clear();

    try {
      assertThat(worker.runOnce()).isEqualTo(20);
    } finally {
      worker.stop();
    }

    Map<String, Long> calls = new TreeMap<>();
    world.calls.forEach((k, v) -> calls.put(k, v.sum()));
    assertThat(calls)
        .containsExactly(entry("flinkJobs.observe", 1L), entry("kafka.describeAll", 1L));
  }

  @Test
  void shouldShareOneLookAtFlinkAndKafkaAcrossBatchesOfRowsNothingTouchedSinceIt()
      throws Exception {
    FakeWorld world = new FakeWorld();
    List<UUID> ids = converged(world, 6);
    ReconcileWorker worker =
        countedWorker(
            world,
            new ReconcileWorker.Settings(
                Duration.ofMillis(10), 2, Duration.ofSeconds(1), 2, Duration.ofMinutes(1), true));
    Thread.sleep(5); // the rows' last writes are strictly before the first look
    world.calls.clear();
    try {
      // Three batches of two: every row once.
      worker.runOnce();
      worker.runOnce();
      worker.runOnce();
      assertThat(world.calls("flinkJobs.observe"))
          .as("one overview for three batches of rows nothing wrote since")
          .isEqualTo(1);
      assertThat(world.calls("kafka.describeAll")).isEqualTo(1);
      assertThat(worker.observations()).isEqualTo(1);

      // Rows 0 and 1 again: this worker released them after that look, so it looks again.
      worker.runOnce();
      assertThat(worker.observations()).isEqualTo(2);

      // A job fails, and a pass records it: row 3 has a write newer than the second look.
      world.flink.fail(world.status(ids.get(3)).jobId());
      world.store.saveStatus(
          ids.get(3),
          null,
          world.store.rows.get(ids.get(3)).phase,
          world.store.rows.get(ids.get(3)).observedGeneration,
          world.status(ids.get(3)));
      worker.runOnce(); // rows 2 and 3

      assertThat(world.calls("flinkJobs.observe"))
          .as("a row written after the look makes its batch look again")
          .isEqualTo(3);
      assertThat(worker.observations()).isEqualTo(3);
      assertThat(world.store.rows.get(ids.get(3)).phase).isNotEqualTo(Phase.RUNNING);
      assertThat(world.store.rows.get(ids.get(2)).phase).isEqualTo(Phase.RUNNING);
    } finally {
      worker.stop();
    }
  }

  @Test
  void shouldWatchJobsBetweenTheFullBatchesOfABacklog() {
    FakeWorld world = new FakeWorld();
    for (int i = 0; i < 6; i++) {
      world.create("CREATE MATERIALIZED TABLE t" + i + " AS SELECT order_id FROM o");
    }
    // The fake store claims every row every time: this one has a backlog of three full batches
    // of two, then nothing due.
    AtomicInteger claims = new AtomicInteger();
    ReconcileStore backlog =
        (ReconcileStore)
            Proxy.newProxyInstance(
                ReconcileStore.class.getClassLoader(),
                new Class<?>[] {ReconcileStore.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("claim") && claims.incrementAndGet() > 3) {
                    return List.of();
                  }
                  try {
                    return method.invoke(world.store, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    // The watch due at every chance: the round looks at the jobs before its first batch and
    // after each full one.
    ReconcileWorker worker =
        new ReconcileWorker(
            backlog,
            world.reconciler,
            world.countedJobs,
            world.countedTopics,
            new ReconcileWorker.Settings(
                Duration.ofMillis(10), 2, Duration.ofSeconds(1), 2, Duration.ZERO, true),
            "w",
            ReconcileMetrics.NONE);
    worker.startPassesOnly();
    try {
      worker.safeRun();
    } finally {
      worker.stop();
    }
    assertThat(claims).hasValue(4);
    assertThat(world.store.markedDue).hasSize(4);
  }

  /** {@code n} tables, each with its job running. */
  private static List<UUID> converged(FakeWorld world, int n) {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add(world.create("CREATE MATERIALIZED TABLE t" + i + " AS SELECT order_id FROM o"));
    }
    ids.forEach(world::converge);
    return ids;
  }

  /** A worker whose calls to Flink and Kafka the world counts, its pass threads started. */
  private static ReconcileWorker countedWorker(FakeWorld world, ReconcileWorker.Settings settings) {
    ReconcileWorker worker =
        new ReconcileWorker(
            world.store,
            world.reconciler,
            world.countedJobs,
            world.countedTopics,
            settings,
            "w",
            ReconcileMetrics.NONE);
    worker.startPassesOnly();
    return worker;
  }

  @Test
  void shouldBackOffExponentiallyUpToFiveMinutesWithJitter() {
    assertThat(ReconcileWorker.backoff(1))
        .isBetween(Duration.ofSeconds(2), Duration.ofMillis(2400));
    assertThat(ReconcileWorker.backoff(2))
        .isBetween(Duration.ofSeconds(3), Duration.ofMillis(3600));
    assertThat(ReconcileWorker.backoff(3))
        .isBetween(Duration.ofMillis(4500), Duration.ofMillis(5400));
    assertThat(ReconcileWorker.backoff(40)).isBetween(Duration.ofMinutes(5), Duration.ofMinutes(6));
    List<Duration> draws = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      draws.add(ReconcileWorker.backoff(4));
    }
    assertThat(new HashSet<>(draws)).as("jittered").hasSizeGreaterThan(1);
  }
}
